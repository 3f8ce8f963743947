# The out-of-step scenario of tests/mpi/test_mpi.cpp ("fewer"): rank 3 runs one experiment fewer
# and reaches write_report while the others start an experiment. Expected: the job ends at once
# (every rank sees the mismatch at that agreement; rank 0 writes the report, then MPI_Abort), with
# a non-zero status, well within the 20 s agreement limit, and the report names the cause.
#   cmake -DMPIRUN="mpirun;-np;4;..." -DPROGRAM=gauge_mpi_tests -DREPORT=fewer.json -P check_out_of_step.cmake
file(REMOVE ${REPORT})
string(TIMESTAMP start "%s")
execute_process(COMMAND ${MPIRUN} ${PROGRAM} fewer ${REPORT} RESULT_VARIABLE rc TIMEOUT 120
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(TIMESTAMP end "%s")
math(EXPR seconds "${end} - ${start}")
message(STATUS "mpirun exited with '${rc}' after ${seconds} s\n${out}\n${err}")
if(rc MATCHES "timeout")
  message(FATAL_ERROR "the job hung: mpirun did not end within 120 s")
endif()
if(rc EQUAL 0)
  message(FATAL_ERROR "mpirun exited 0: the ranks out of step were not detected")
endif()
if(seconds GREATER 15)
  message(FATAL_ERROR "the job took ${seconds} s: the mismatch was not detected at the agreement (limit 20 s)")
endif()
if(err MATCHES "FAIL rank" OR err MATCHES "malloc|corrupt|Segmentation")
  message(FATAL_ERROR "a rank failed a check or crashed")
endif()
if(NOT EXISTS ${REPORT})
  message(FATAL_ERROR "rank 0 wrote no report at ${REPORT}")
endif()
file(READ ${REPORT} doc)
string(JSON error GET "${doc}" ranks error)
if(NOT error MATCHES "^rank 0: ranks out of step at '(experiment start|write_report)': another rank is at a different point of the program")
  message(FATAL_ERROR "ranks.error does not name the mismatch: '${error}'")
endif()
message(STATUS "out of step detected: ${error}")
