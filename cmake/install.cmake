# Installs the header-only libraries with an exported package, so that a consumer writes
#   find_package(lookback CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE lookback::primitives)
# lookback::distributed is the component `distributed`, exported apart, so that only a consumer that
# asks for it (find_package(lookback CONFIG REQUIRED COMPONENTS distributed)) needs its engines.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(LOOKBACK_CMAKE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/lookback")
install(DIRECTORY primitives/include/ algorithms/include/ pipelines/include/ distributed/include/ DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
        FILES_MATCHING PATTERN "*.cuh" PATTERN "*.hpp")
install(TARGETS lookback_primitives lookback_algorithms lookback_pipelines EXPORT lookbackTargets)
install(EXPORT lookbackTargets NAMESPACE lookback:: DESTINATION "${LOOKBACK_CMAKE_DIR}")
install(TARGETS lookback_distributed EXPORT lookbackDistributedTargets)
install(EXPORT lookbackDistributedTargets NAMESPACE lookback:: DESTINATION "${LOOKBACK_CMAKE_DIR}")
configure_package_config_file(cmake/lookbackConfig.cmake.in "${CMAKE_CURRENT_BINARY_DIR}/lookbackConfig.cmake"
                              INSTALL_DESTINATION "${LOOKBACK_CMAKE_DIR}")
write_basic_package_version_file("${CMAKE_CURRENT_BINARY_DIR}/lookbackConfigVersion.cmake"
                                 COMPATIBILITY SameMinorVersion)
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/lookbackConfig.cmake" cmake/FindNCCL.cmake "${CMAKE_CURRENT_BINARY_DIR}/lookbackConfigVersion.cmake"
        DESTINATION "${LOOKBACK_CMAKE_DIR}")
