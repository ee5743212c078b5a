# Install rules and the CMake package (cmake/KilnConfig.cmake.in): two export
# sets, so an application that only runs models never needs MLIR:
#   find_package(Kiln COMPONENTS runtime) ; target_link_libraries(app PRIVATE Kiln::runtime)
#   find_package(Kiln COMPONENTS Compiler) ; target_link_libraries(tool PRIVATE Kiln::Compiler)
include(CMakePackageConfigHelpers)
set(KILN_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Kiln)

install(TARGETS kiln_abi EXPORT KilnRuntimeTargets)
install(DIRECTORY runtime/abi/kiln DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")

if(KILN_BUILD_RUNTIME)
  install(TARGETS kiln_runtime EXPORT KilnRuntimeTargets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
    INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(DIRECTORY runtime/include/kiln DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
    FILES_MATCHING PATTERN "*.h")
  foreach(tool kiln-run kiln-opcheck)
    if(TARGET ${tool})
      install(TARGETS ${tool} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
    endif()
  endforeach()
endif()

if(KILN_BUILD_COMPILER)
  install(TARGETS KilnCompilerShared EXPORT KilnCompilerTargets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(TARGETS kiln-compile kiln-opt RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  # Public compiler headers, and the dialect headers under kiln/dialects/ so
  # they never clash with another project's ATen/ folder.
  install(DIRECTORY include/kiln ${PROJECT_BINARY_DIR}/include/kiln
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h" PATTERN "*.inc")
  install(DIRECTORY dialects/ ${PROJECT_BINARY_DIR}/dialects/
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kiln/dialects
    FILES_MATCHING PATTERN "*.h" PATTERN "*.inc" PATTERN "*.td"
    PATTERN "CMakeFiles" EXCLUDE)
endif()

install(EXPORT KilnRuntimeTargets NAMESPACE Kiln:: DESTINATION ${KILN_CMAKE_DIR})
if(KILN_BUILD_COMPILER)
  install(EXPORT KilnCompilerTargets NAMESPACE Kiln:: DESTINATION ${KILN_CMAKE_DIR})
endif()
configure_package_config_file(cmake/KilnConfig.cmake.in
  ${PROJECT_BINARY_DIR}/KilnConfig.cmake INSTALL_DESTINATION ${KILN_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/KilnConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/KilnConfig.cmake ${PROJECT_BINARY_DIR}/KilnConfigVersion.cmake
  DESTINATION ${KILN_CMAKE_DIR})
