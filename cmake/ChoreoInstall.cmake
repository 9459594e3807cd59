# cmake/ChoreoInstall.cmake - what `cmake --install` puts where (docs/install.md).
#
# PREFIX/bin      choreo, choreo-run, choreo-calibrate, choreo-trace-driver
# PREFIX/LIBDIR   libchoreo.so (runtime and C API), libchoreo-mpi.so (the
#                 drop-in MPI library), libchoreo-trace.so (choreo trace's
#                 preload library, found by `choreo trace` next to bin/)
# PREFIX/include  choreo.h (the C API); choreo/{ir,verifier,executor}/*.h,
#                 the C++ API libchoreo.so exports (docs/design.md)
# PREFIX/LIBDIR/cmake/choreo   find_package(choreo [COMPONENTS cxx])
# PREFIX/LIBDIR/pkgconfig      choreo.pc (C API), choreo-mpi.pc
#
# The executables link choreo statically (no RPATH needed); the shared
# libraries need only MPI and the C/C++ runtime.

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS choreo choreo-run choreo-calibrate choreo-trace-driver
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS choreo_runtime_shared EXPORT choreoTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS choreo_mpi choreo_trace_preload
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})

install(FILES ${CMAKE_SOURCE_DIR}/executor/choreo.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The C++ API: every header of the runtime layer (ir/, verifier/ without
# smt/, executor/), included as "ir/Schedule.h" from include/choreo.
foreach(Dir ir verifier executor)
  file(GLOB Headers CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/${Dir}/*.h)
  install(FILES ${Headers}
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/choreo/${Dir})
endforeach()

# choreo::choreo: libchoreo.so with choreo.h (C, C++ or Fortran callers of
# the C API). Its usage requirements name MPI's C target, which the package
# file finds; choreo::cxx (component cxx) adds the C++ headers and theirs.
set_target_properties(choreo_runtime_shared PROPERTIES EXPORT_NAME choreo)
target_include_directories(choreo_runtime_shared INTERFACE
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
install(EXPORT choreoTargets NAMESPACE choreo::
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/choreo)
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/choreoConfig.cmake.in
  ${CMAKE_BINARY_DIR}/cmake/choreoConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/choreo
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR)
write_basic_package_version_file(
  ${CMAKE_BINARY_DIR}/cmake/choreoConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/cmake/choreoConfig.cmake
  ${CMAKE_BINARY_DIR}/cmake/choreoConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/choreo)

# pkg-config: paths relative to the .pc file's prefix, so that a tree
# installed with --prefix DIR works where it lands.
string(REPLACE "/" ";" _choreo_libdir_parts "${CMAKE_INSTALL_LIBDIR}")
set(CHOREO_PC_PREFIX "\${pcfiledir}/..")
foreach(_part IN LISTS _choreo_libdir_parts)
  string(APPEND CHOREO_PC_PREFIX "/..")
endforeach()
foreach(Pc choreo choreo-mpi)
  configure_file(${CMAKE_SOURCE_DIR}/cmake/${Pc}.pc.in
    ${CMAKE_BINARY_DIR}/cmake/${Pc}.pc @ONLY)
  install(FILES ${CMAKE_BINARY_DIR}/cmake/${Pc}.pc
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
