# Builds and runs tests/consumer against gauge: MODE=find_package installs gauge into a prefix
# first; MODE=add_subdirectory and MODE=fetchcontent point the consumer at the source tree. The
# consumer is a Debug build (gauge's compiled part is built in it at -O0: cheaper to compile).
cmake_minimum_required(VERSION 3.22)
set(dir ${WORK_DIR}/${MODE})
file(REMOVE_RECURSE ${dir})
file(MAKE_DIRECTORY ${dir})
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(run_output "${out}${err}" PARENT_SCOPE)  # what the command printed, for the checks below
endfunction()
if(MODE STREQUAL "find_package")
  run(${CMAKE_COMMAND} --install ${GAUGE_BINARY_DIR} --prefix ${dir}/prefix)
  # The package's version file (SameMajorVersion): find_package(gauge <request>) accepts the
  # installed M.m.p for M.m and M.0 (an older minor version), not for M.(m+1) (newer) or for
  # (M+1).0 and (M-1).0 (another major version).
  file(GLOB_RECURSE version_file ${dir}/prefix/*/gaugeConfigVersion.cmake)
  if(NOT version_file)
    message(FATAL_ERROR "not installed: gaugeConfigVersion.cmake")
  endif()
  set(PACKAGE_FIND_VERSION 0)
  set(PACKAGE_FIND_VERSION_MAJOR 0)
  include(${version_file})  # sets PACKAGE_VERSION
  string(REGEX MATCH "^([0-9]+)\\.([0-9]+)" installed ${PACKAGE_VERSION})
  set(major ${CMAKE_MATCH_1})
  math(EXPR next_minor "${CMAKE_MATCH_2} + 1")
  math(EXPR next_major "${major} + 1")
  set(requests ${installed}:TRUE ${major}.0:TRUE ${major}.${next_minor}:FALSE ${next_major}.0:FALSE)
  if(major GREATER 0)
    math(EXPR previous_major "${major} - 1")
    list(APPEND requests ${previous_major}.0:FALSE)
  endif()
  foreach(request_expected IN LISTS requests)
    string(REPLACE ":" ";" request_expected ${request_expected})
    list(GET request_expected 0 PACKAGE_FIND_VERSION)
    list(GET request_expected 1 expected)
    string(REGEX MATCH "^[0-9]+" PACKAGE_FIND_VERSION_MAJOR ${PACKAGE_FIND_VERSION})
    include(${version_file})
    if(NOT PACKAGE_VERSION_COMPATIBLE STREQUAL expected)
      message(FATAL_ERROR "${version_file}: gauge ${PACKAGE_VERSION} for find_package(gauge ${PACKAGE_FIND_VERSION}): "
                          "compatible ${PACKAGE_VERSION_COMPATIBLE}, expected ${expected}")
    endif()
  endforeach()
  message(STATUS "consumer (${MODE}): find_package(gauge <version>) with gauge ${PACKAGE_VERSION}: ${requests}")
  run(${CMAKE_COMMAND} -S ${GAUGE_SOURCE_DIR}/tests/consumer -B ${dir}/build -G ${GENERATOR}
      -DCMAKE_BUILD_TYPE=None -DCMAKE_PREFIX_PATH=${dir}/prefix
      -DGAUGE_CONSUMER_MODE=find_package)
elseif(MODE STREQUAL "fetchcontent_cpu")
  # A CPU-only project on a machine without the CUDA toolkit (hidden from find_package): gauge
  # as a subproject still configures, gauge::host builds and runs, and gauge::gauge is absent.
  run(${CMAKE_COMMAND} -S ${GAUGE_SOURCE_DIR}/tests/consumer -B ${dir}/build -G ${GENERATOR}
      -DCMAKE_BUILD_TYPE=None -DGAUGE_CONSUMER_MODE=fetchcontent -DGAUGE_SOURCE_DIR=${GAUGE_SOURCE_DIR}
      -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON -DGAUGE_CONSUMER_EXPECT_CUDA=OFF)
else()
  # gauge as a subproject: its tests, examples and tools are off by default (not the top level).
  run(${CMAKE_COMMAND} -S ${GAUGE_SOURCE_DIR}/tests/consumer -B ${dir}/build -G ${GENERATOR}
      -DCMAKE_BUILD_TYPE=None -DGAUGE_CONSUMER_MODE=${MODE} -DGAUGE_SOURCE_DIR=${GAUGE_SOURCE_DIR})
endif()
# A subproject logs nothing of its own search for CUDA or MPI (issue "Every user's first day",
# #10c: a CXX-only project using FetchContent was told that gauge found CUDA and MPI).
if(NOT MODE STREQUAL "find_package")
  string(REGEX MATCHALL "[^\n]*(CUDA|MPI|gauge:)[^\n]*" said "${run_output}")
  if(said)
    message(FATAL_ERROR "consumer (${MODE}): gauge as a subproject logged at configure time:\n${said}")
  endif()
endif()
run(${CMAKE_COMMAND} --build ${dir}/build)
if(MODE STREQUAL "find_package")  # the program with GAUGE_IMPLEMENTATION is built in this mode only
  run(${dir}/build/consumer ${dir}/consumer.json)
  if(NOT EXISTS ${dir}/consumer.json)
    message(FATAL_ERROR "the consumer wrote no report")
  endif()
  message(STATUS "consumer (${MODE}) built, ran and wrote ${dir}/consumer.json")
endif()
# The program without GAUGE_IMPLEMENTATION: it links, runs, and its report names its own flags
# (-O2, NDEBUG), not those of the compiled part (Debug: -O0, assertions on).
run(${dir}/build/consumer_linked ${dir}/consumer-linked.json)
file(READ ${dir}/consumer-linked.json linked)
string(JSON linked_status GET "${linked}" experiments 0 status)
string(JSON linked_optimized GET "${linked}" environment compiler optimized)
string(JSON linked_ndebug GET "${linked}" environment compiler ndebug)
if(NOT linked_status STREQUAL "ok" OR NOT linked_optimized OR NOT linked_ndebug)
  message(FATAL_ERROR "consumer_linked: status ${linked_status}, compiler optimized ${linked_optimized} ndebug "
                      "${linked_ndebug} (expected ok, ON, ON: its own -O2 -DNDEBUG, not the Debug library's)")
endif()
message(STATUS "consumer (${MODE}): consumer_linked (no GAUGE_IMPLEMENTATION) ran; its report names its own flags")
# The suite program on gauge::suite_host, where it was built: two points, both in its report.
if(EXISTS ${dir}/build/consumer_suite)
  run(${dir}/build/consumer_suite --max-time 0.1 --quiet --out ${dir}/consumer-suite.json)
  file(READ ${dir}/consumer-suite.json suite)
  string(JSON suite_points LENGTH "${suite}" experiments)
  if(NOT suite_points EQUAL 2)
    message(FATAL_ERROR "consumer_suite: ${suite_points} experiments in its report, expected 2 (n = 1024, 4096)")
  endif()
  message(STATUS "consumer (${MODE}): consumer_suite (gauge::suite_host) ran 2 points")
elseif(MODE STREQUAL "find_package")
  message(FATAL_ERROR "consumer_suite was not built (gauge::suite_host missing from the installed package)")
endif()
# The report validates against the schema: the installed one (find_package), or the source tree's.
# With the tools built, the installed package also holds gauge-compare, gauge-export and gauge-plot.
if(GAUGE_PYTHON)
  if(MODE STREQUAL "find_package")
    set(schema ${dir}/prefix/share/gauge/gauge-report.schema.json)
    set(installed ${schema} ${dir}/prefix/include/gauge/catch2.hpp ${dir}/prefix/include/gauge/report/compare.hpp)
    if(GAUGE_TOOLS)
      list(APPEND installed ${dir}/prefix/bin/gauge-compare ${dir}/prefix/bin/gauge-export ${dir}/prefix/bin/gauge-plot)
    endif()
    foreach(f IN LISTS installed)
      if(NOT EXISTS ${f})
        message(FATAL_ERROR "not installed: ${f}")
      endif()
    endforeach()
    if(GAUGE_TOOLS)
      # The installed tool runs and gates (a report against itself; threshold 50 %: the run's own
      # noise on a loaded 2-core machine can make a 2 % verdict inconclusive, exit 4).
      run(${dir}/prefix/bin/gauge-compare ${dir}/consumer.json ${dir}/consumer.json --fail-on-regression --threshold 50%)
    endif()
  else()
    set(schema ${GAUGE_SOURCE_DIR}/schema/gauge-report.schema.json)
  endif()
  set(reports ${dir}/consumer-linked.json)
  if(MODE STREQUAL "find_package")
    list(APPEND reports ${dir}/consumer.json)
  endif()
  run(${GAUGE_PYTHON} ${GAUGE_SOURCE_DIR}/tests/validate_report.py ${schema} ${reports})
  message(STATUS "consumer (${MODE}): ${reports} validate against ${schema}")
endif()
