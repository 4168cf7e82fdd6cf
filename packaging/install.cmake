#   What `cmake --install` puts where (GNUInstallDirs; docs/install.md):
#     bin/drover                                the executable
#     bin/drover-worker                         the worker agent alone, lean (tools/cli)
#     LIBDIR/libdrover.so.X.Y.Z, .so.X, .so     the public API, shared (SONAME .so.X)
#     LIBDIR/libdrover.a                        the same, one static archive
#     include/drover/*.h                        the public headers
#     LIBDIR/pkgconfig/drover.pc                for pkg-config
#     share/man/man1/drover.1.gz, drover-*.1.gz help2man, from each command's --help
#     share/bash-completion/completions/drover  commands, options, subcommands
#     share/doc/drover/examples/                drover.cfg (every setting), submit_wait.c
#   LIBDIR is lib/<multiarch> on Debian with the prefix /usr, else lib or lib64.
#   The systemd units and /etc/drover are the Debian package's (deb.cmake).
include (GNUInstallDirs)
install (TARGETS drover drover-worker RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install (TARGETS drover_shared drover_static
         LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
         ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install (DIRECTORY ${PROJECT_SOURCE_DIR}/include/drover
         DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")

#   drover.pc names the prefix the tree is installed under, which is known
#   only when installing (`cmake --install build --prefix P`): it is written
#   then, from the one configure_file made
foreach (dir LIBDIR INCLUDEDIR)
    if (IS_ABSOLUTE "${CMAKE_INSTALL_${dir}}")
        set (DROVER_PC_${dir} "${CMAKE_INSTALL_${dir}}")
    else ()
        set (DROVER_PC_${dir} "\${prefix}/${CMAKE_INSTALL_${dir}}")
    endif ()
endforeach ()
set (DROVER_PC_PREFIX "@DROVER_INSTALL_PREFIX@")
configure_file (${PROJECT_SOURCE_DIR}/packaging/drover.pc.in
                ${PROJECT_BINARY_DIR}/packaging/drover.pc.in @ONLY)
install (CODE "
    set (DROVER_INSTALL_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
    configure_file (\"${PROJECT_BINARY_DIR}/packaging/drover.pc.in\"
                    \"${PROJECT_BINARY_DIR}/packaging/drover.pc\" @ONLY)")
install (FILES ${PROJECT_BINARY_DIR}/packaging/drover.pc
         DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

#   The man pages, made when `drover` is (packaging/man/man.cmake), by
#   help2man (Debian's help2man; ./run installs it)
option (DROVER_MAN "Write the man pages with help2man" ON)
if (DROVER_MAN)
    find_program (DROVER_HELP2MAN help2man)
    if (NOT DROVER_HELP2MAN)
        message (FATAL_ERROR "help2man not found: apt-get install help2man "
                             "(or -DDROVER_MAN=OFF to build without the man pages)")
    endif ()
endif ()
set (DROVER_MAN_DIR ${PROJECT_BINARY_DIR}/man)
add_custom_command (OUTPUT ${DROVER_MAN_DIR}/drover.1.gz
    COMMAND ${CMAKE_COMMAND} -DDROVER=$<TARGET_FILE:drover> -DOUT=${DROVER_MAN_DIR}
            -DVERSION=${PROJECT_VERSION}
            -DTEXT=${PROJECT_SOURCE_DIR}/packaging/man/help2man-text.sh
            -P ${PROJECT_SOURCE_DIR}/packaging/man/man.cmake
    DEPENDS drover ${PROJECT_SOURCE_DIR}/packaging/man/man.cmake
            ${PROJECT_SOURCE_DIR}/packaging/man/help2man-text.sh
    COMMENT "Writing the man pages with help2man")
#   Every setting with its comment, as the broker prints them
add_custom_command (OUTPUT ${PROJECT_BINARY_DIR}/examples/drover.cfg
    COMMAND ${CMAKE_COMMAND} -DDROVER=$<TARGET_FILE:drover>
            -DOUT=${PROJECT_BINARY_DIR}/examples/drover.cfg -DFOR=example
            -P ${PROJECT_SOURCE_DIR}/packaging/examplecfg.cmake
    DEPENDS drover ${PROJECT_SOURCE_DIR}/packaging/examplecfg.cmake
    COMMENT "Writing examples/drover.cfg from drover broker --print-config")
if (DROVER_MAN)
    add_custom_target (drover_docs ALL
        DEPENDS ${DROVER_MAN_DIR}/drover.1.gz ${PROJECT_BINARY_DIR}/examples/drover.cfg)
    install (DIRECTORY ${DROVER_MAN_DIR}/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1
             FILES_MATCHING PATTERN "*.1.gz" PATTERN bin EXCLUDE)
else ()
    add_custom_target (drover_docs ALL DEPENDS ${PROJECT_BINARY_DIR}/examples/drover.cfg)
endif ()

install (FILES ${PROJECT_SOURCE_DIR}/packaging/completion/drover
         DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install (FILES ${PROJECT_BINARY_DIR}/examples/drover.cfg
               ${PROJECT_SOURCE_DIR}/examples/submit_wait.c
               ${PROJECT_SOURCE_DIR}/examples/Makefile
         DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)

#   tests/test_install.c installs this build tree into a scratch prefix:
#   it needs everything installed built first
if (TARGET test_install)
    target_compile_definitions (test_install PRIVATE
        DROVER_BUILD_DIR="${PROJECT_BINARY_DIR}"
        DROVER_CMAKE="${CMAKE_COMMAND}"
        DROVER_INSTALL_LIBDIR="${CMAKE_INSTALL_LIBDIR}")
    add_dependencies (test_install drover_shared drover_static drover_docs)
endif ()
