# Builds and runs tests/consumer against gauge: MODE=find_package installs gauge into a prefix
# first; MODE=add_subdirectory points the consumer at the source tree.
set(dir ${WORK_DIR}/${MODE})
file(REMOVE_RECURSE ${dir})
file(MAKE_DIRECTORY ${dir})
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
endfunction()
if(MODE STREQUAL "find_package")
  run(${CMAKE_COMMAND} --install ${GAUGE_BINARY_DIR} --prefix ${dir}/prefix)
  run(${CMAKE_COMMAND} -S ${GAUGE_SOURCE_DIR}/tests/consumer -B ${dir}/build -G ${GENERATOR}
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${dir}/prefix
      -DGAUGE_CONSUMER_MODE=find_package)
else()
  run(${CMAKE_COMMAND} -S ${GAUGE_SOURCE_DIR}/tests/consumer -B ${dir}/build -G ${GENERATOR}
      -DCMAKE_BUILD_TYPE=Release -DGAUGE_CONSUMER_MODE=add_subdirectory -DGAUGE_SOURCE_DIR=${GAUGE_SOURCE_DIR})
endif()
run(${CMAKE_COMMAND} --build ${dir}/build)
run(${dir}/build/consumer ${dir}/consumer.json)
if(NOT EXISTS ${dir}/consumer.json)
  message(FATAL_ERROR "the consumer wrote no report")
endif()
message(STATUS "consumer (${MODE}) built, ran and wrote ${dir}/consumer.json")
