#   The Debian package (`cpack -G DEB` in the build directory): what the
#   installed tree becomes, its dependencies and its maintainer scripts.
#   Configure with -DCMAKE_INSTALL_PREFIX=/usr for a package (`./run
#   package` does): GNUInstallDirs chooses the library directory from the
#   prefix it is configured with. The package gets the systemd units
#   (packaging/systemd/), /etc/drover/drover.cfg (a conffile) and the
#   example worker settings on top of whatever packaging/install.cmake
#   installs; its postinst makes the `drover` user and starts nothing.
include (GNUInstallDirs)

#   /etc/drover/drover.cfg, generated from the binary it configures
set (DROVER_PACKAGE_CFG ${PROJECT_BINARY_DIR}/packaging/drover.cfg)
add_custom_command (OUTPUT ${DROVER_PACKAGE_CFG}
    COMMAND ${CMAKE_COMMAND} -DDROVER=$<TARGET_FILE:drover> -DOUT=${DROVER_PACKAGE_CFG}
            -DFOR=package -P ${PROJECT_SOURCE_DIR}/packaging/examplecfg.cmake
    DEPENDS drover ${PROJECT_SOURCE_DIR}/packaging/examplecfg.cmake
    COMMENT "Generating packaging/drover.cfg from drover broker --print-config"
    VERBATIM)

#   The Debian changelog and copyright every package carries in
#   /usr/share/doc/drover (lintian's no-changelog, no-copyright-file)
set (DROVER_MAINTAINER "drover maintainers <maintainers@users.noreply.a-seed-5f4c2ff9.example>")
string (TIMESTAMP DROVER_CHANGELOG_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)
configure_file (${PROJECT_SOURCE_DIR}/packaging/debian/changelog.in
                ${PROJECT_BINARY_DIR}/packaging/changelog @ONLY)
add_custom_command (OUTPUT ${PROJECT_BINARY_DIR}/packaging/changelog.gz
    COMMAND gzip -9nf -k ${PROJECT_BINARY_DIR}/packaging/changelog
    DEPENDS ${PROJECT_BINARY_DIR}/packaging/changelog
    VERBATIM)
add_custom_target (drover_package_files ALL
    DEPENDS ${DROVER_PACKAGE_CFG} ${PROJECT_BINARY_DIR}/packaging/changelog.gz)

install (CODE "
    set (DROVER_SOURCE_DIR \"${PROJECT_SOURCE_DIR}\")
    set (DROVER_BINARY_DIR \"${PROJECT_BINARY_DIR}\")
    set (DROVER_BINDIR \"${CMAKE_INSTALL_BINDIR}\")
    set (DROVER_PACKAGE_CFG \"${DROVER_PACKAGE_CFG}\")
    include (\"${PROJECT_SOURCE_DIR}/packaging/systemd/install-files.cmake\")")
install (FILES ${PROJECT_SOURCE_DIR}/packaging/systemd/worker-default.env
         DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)
install (FILES ${PROJECT_SOURCE_DIR}/packaging/debian/copyright
               ${PROJECT_BINARY_DIR}/packaging/changelog.gz
         DESTINATION ${CMAKE_INSTALL_DOCDIR})

#   CPack: one package, drover_VERSION_ARCH.deb. DESTDIR staging, so that
#   the absolute destinations above (/etc/drover) land in the package and
#   the install scripts see the prefix /usr.
set (CPACK_GENERATOR DEB)
set (CPACK_PACKAGE_NAME drover)
set (CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set (CPACK_PACKAGE_VENDOR "drover")
set (CPACK_PACKAGE_CONTACT "${DROVER_MAINTAINER}")
set (CPACK_PACKAGE_DESCRIPTION_SUMMARY "cluster task broker on ZeroMQ")
set (CPACK_PACKAGING_INSTALL_PREFIX /usr)
set (CPACK_INSTALL_PREFIX /usr)                 #  what the install scripts see with DESTDIR
set (CPACK_SET_DESTDIR ON)
set (CPACK_STRIP_FILES ON)
set (CPACK_DEBIAN_PACKAGE_NAME drover)
set (CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set (CPACK_DEBIAN_PACKAGE_VERSION ${PROJECT_VERSION})
set (CPACK_DEBIAN_PACKAGE_RELEASE "")
set (CPACK_DEBIAN_PACKAGE_MAINTAINER "${DROVER_MAINTAINER}")
set (CPACK_DEBIAN_PACKAGE_SECTION admin)
set (CPACK_DEBIAN_PACKAGE_PRIORITY optional)
#   (CPack puts the summary first and indents these lines)
set (CPACK_DEBIAN_PACKAGE_DESCRIPTION
"drover queues shell commands with a priority and the procs, memory,
labels and devices they need, and runs them on worker agents that connect
to it over TCP (optionally CURVE): batches, arrays, workflows, services
kept running, fair shares between owners, an elastic pool and standby
brokers. This package holds the drover command (broker, worker agent and
client), systemd units for the broker and for worker agents, and the
broker's settings in /etc/drover. It starts nothing by itself.")
#   The libraries the binaries link, found by dpkg-shlibdeps (libczmq4,
#   libzmq5, ...); the postinst needs adduser
set (CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set (CPACK_DEBIAN_PACKAGE_DEPENDS "adduser")
#   Our own shared libraries (packaging/install.cmake), found in the build
#   tree rather than in an installed package, and a shlibs file for them;
#   the ldconfig trigger is packaging/debian/triggers (CPack adds ldconfig
#   calls only to maintainer scripts it writes itself)
set (CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${PROJECT_BINARY_DIR})
set (CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set (CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set (CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${PROJECT_SOURCE_DIR}/packaging/debian/postinst
    ${PROJECT_SOURCE_DIR}/packaging/debian/prerm
    ${PROJECT_SOURCE_DIR}/packaging/debian/postrm
    ${PROJECT_SOURCE_DIR}/packaging/debian/conffiles
    ${PROJECT_SOURCE_DIR}/packaging/debian/triggers)
include (CPack)
