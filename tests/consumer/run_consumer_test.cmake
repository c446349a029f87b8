# Installs the build tree into a scratch prefix, then configures and builds the consumer project
# against it with find_package(lookback); the test consumer_runs runs it.
file(REMOVE_RECURSE "${WORK_DIR}")
# The architecture list arrives joined with '|' (a ';' would split the -D argument).
string(REPLACE "|" ";" architectures "${CUDA_ARCHITECTURES}")
execute_process(COMMAND ${CMAKE_COMMAND} --install "${LOOKBACK_BUILD_DIR}" --prefix "${WORK_DIR}/prefix"
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "cmake --install failed: ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S "${CONSUMER_SOURCE_DIR}" -B "${WORK_DIR}/build" -G Ninja
                        "-DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix" "-DCMAKE_CUDA_ARCHITECTURES=${architectures}"
                        "-DCMAKE_CUDA_COMPILER=${CUDA_COMPILER}"
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "configuring the consumer against the installed package failed: ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build "${WORK_DIR}/build" RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "building the consumer failed: ${rc}")
endif()
# The test consumer_runs runs what was built.
