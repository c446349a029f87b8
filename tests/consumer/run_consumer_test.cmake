# Installs the build tree into a scratch prefix, then configures and builds the consumer project
# against it with find_package(lookback COMPONENTS distributed), and configures core_only/ against it
# without components; the test consumer_runs runs what was built.
file(REMOVE_RECURSE "${WORK_DIR}")
# The architecture list arrives joined with '|' (a ';' would split the -D argument).
string(REPLACE "|" ";" architectures "${CUDA_ARCHITECTURES}")

# Runs a command, failing the test with `what` where it fails.
function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(rc)
    message(FATAL_ERROR "${what} failed: ${rc}")
  endif()
endfunction()

step("cmake --install" ${CMAKE_COMMAND} --install "${LOOKBACK_BUILD_DIR}" --prefix "${WORK_DIR}/prefix")
foreach(project IN ITEMS build core_only)
  set(source "${CONSUMER_SOURCE_DIR}")
  if(project STREQUAL "core_only")
    set(source "${CONSUMER_SOURCE_DIR}/core_only")
  endif()
  step("configuring ${source} against the installed package"
       ${CMAKE_COMMAND} -S "${source}" -B "${WORK_DIR}/${project}" -G Ninja "-DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix"
       "-DCMAKE_CUDA_ARCHITECTURES=${architectures}" "-DCMAKE_CUDA_COMPILER=${CUDA_COMPILER}")
endforeach()
step("building the consumer" ${CMAKE_COMMAND} --build "${WORK_DIR}/build")

# One CUDA runtime, the shared one the consumer chose: libcudart.so needed, no static copy inside.
execute_process(COMMAND readelf -d "${WORK_DIR}/build/consumer" OUTPUT_VARIABLE dynamic RESULT_VARIABLE rc)
execute_process(COMMAND nm "${WORK_DIR}/build/consumer" OUTPUT_VARIABLE symbols RESULT_VARIABLE nm_rc)
if(rc OR nm_rc)
  message(FATAL_ERROR "readelf -d or nm of the consumer failed: ${rc} ${nm_rc}")
endif()
if(NOT dynamic MATCHES "NEEDED[^\n]*libcudart\\.so" OR symbols MATCHES "[0-9a-f]+ T cudaGetDeviceCount")
  message(FATAL_ERROR "the consumer, built with the shared CUDA runtime, does not hold it alone")
endif()
# The test consumer_runs runs what was built.
