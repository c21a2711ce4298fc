# Installation and the Debian package (CPack): the two executables, the
# desktop entry, the icon, the MIME types for *.tessera and *.onnx, man pages
# generated from each program's --help by help2man, and one bundled sample.
# Build it with `cmake --build --preset default --target package`; the result is
# build/tessera_<version>_<arch>.deb (docs/packaging.md). Included last from the
# top-level CMakeLists.txt.
include(GNUInstallDirs)

set(_tessera_programs)
foreach(program tessera tessera-cli)
  if(TARGET ${program})
    install(TARGETS ${program} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
    list(APPEND _tessera_programs ${program})
  endif()
endforeach()

# The CPU backend's LLVM module (backends/cpu/jitcache.cpp looks for it in
# ../lib/tessera from the executable): without it every element-wise chain
# runs on the reference kernels.
# The importer's helper process (core/onnx/onnx_checks.cpp looks for it there too).
if(TARGET tessera-onnx-check)
  install(TARGETS tessera-onnx-check RUNTIME DESTINATION lib/tessera)
endif()
if(TARGET tessera_cpu_jit)
  install(TARGETS tessera_cpu_jit LIBRARY DESTINATION lib/tessera)
endif()
install(FILES ${PROJECT_SOURCE_DIR}/resources/desktop/tessera.desktop
  DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES ${PROJECT_SOURCE_DIR}/resources/desktop/tessera.svg
  DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
install(FILES ${PROJECT_SOURCE_DIR}/resources/desktop/tessera-mime.xml
  DESTINATION ${CMAKE_INSTALL_DATADIR}/mime/packages RENAME tessera.xml)
install(FILES ${PROJECT_SOURCE_DIR}/plugins/ios/networks/squeezenet.ios.json
  DESTINATION ${CMAKE_INSTALL_DATADIR}/tessera/samples)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})

# Man pages: help2man runs each program's --help and --version (neither needs
# a display). Without help2man (.ci/deps installs it) the package has none.
find_program(HELP2MAN_EXECUTABLE help2man)
find_program(GZIP_EXECUTABLE gzip)
if(HELP2MAN_EXECUTABLE AND GZIP_EXECUTABLE)
  set(_tessera_man_tessera "workbench for scheduling DNN computational graphs onto accelerators")
  set(_tessera_man_tessera-cli "schedule, run and compare DNN computational graphs from the command line")
  set(_tessera_man_pages)
  foreach(program ${_tessera_programs})
    set(page ${PROJECT_BINARY_DIR}/man/${program}.1)
    add_custom_command(OUTPUT ${page}.gz
      COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/man
      COMMAND ${CMAKE_COMMAND} -E env --unset=DISPLAY --unset=WAYLAND_DISPLAY QT_QPA_PLATFORM=offscreen
              ${HELP2MAN_EXECUTABLE} --no-info --no-discard-stderr --section=1
              "--name=${_tessera_man_${program}}" --output=${page} $<TARGET_FILE:${program}>
      COMMAND ${GZIP_EXECUTABLE} -9nf ${page}
      DEPENDS ${program}
      COMMENT "Generating the ${program}(1) man page from its --help"
      VERBATIM)
    list(APPEND _tessera_man_pages ${page}.gz)
  endforeach()
  add_custom_target(tessera_man_pages ALL DEPENDS ${_tessera_man_pages})
  install(FILES ${_tessera_man_pages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(STATUS "help2man or gzip not found: the package will have no man pages")
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME tessera)
set(CPACK_PACKAGE_VENDOR "Tessera developers")
set(CPACK_PACKAGE_CONTACT "Tessera developers <tessera@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "workbench for scheduling DNN computational graphs onto accelerators")
set(CPACK_PACKAGE_DESCRIPTION
    "Tessera imports ONNX models, schedules them with the algorithms of the literature (IOS, \
GraphTurbo, Welder, BrickDL, PCGC and baselines), lets you inspect and override every decision, \
and runs the plans on a reference CPU backend. Includes the tessera workbench and tessera-cli.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON) # Depends: from dpkg-shlibdeps (Qt 6, protobuf, ONNX, Graphviz, SQLite)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "shared-mime-info, desktop-file-utils")
include(CPack)
