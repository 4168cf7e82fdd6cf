#   Included at install time (`cmake --install`, and cpack's staging) from
#   packaging/deb.cmake's install(CODE), with DROVER_SOURCE_DIR,
#   DROVER_BINARY_DIR, DROVER_BINDIR (relative, GNUInstallDirs') and
#   DROVER_PACKAGE_CFG set: installs the systemd units and the settings file
#   for the prefix chosen now, not the one configured. Prefix /usr (the
#   package) gives /usr/lib/systemd/system and /etc/drover; any other
#   prefix P gives P/lib/systemd/system and P/etc/drover, so an install
#   into a scratch prefix needs no root. The units name the binary and the
#   settings under that prefix. file(INSTALL) adds DESTDIR itself.
if (CMAKE_INSTALL_PREFIX STREQUAL "/usr")
    set (drover_etc /etc/drover)
else ()
    set (drover_etc ${CMAKE_INSTALL_PREFIX}/etc/drover)
endif ()
set (drover_unitdir ${CMAKE_INSTALL_PREFIX}/lib/systemd/system)
#   Staged per destination: a cpack and an install may run at once
string (MD5 drover_key "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}")
set (drover_staged ${DROVER_BINARY_DIR}/packaging/systemd/${drover_key})
file (MAKE_DIRECTORY ${drover_staged})

foreach (unit drover-broker.service drover-worker@.service)
    file (READ ${DROVER_SOURCE_DIR}/packaging/systemd/${unit} text)
    string (REPLACE "/usr/bin/drover" "${CMAKE_INSTALL_PREFIX}/${DROVER_BINDIR}/drover"
            text "${text}")
    string (REPLACE "/etc/drover/" "${drover_etc}/" text "${text}")
    file (WRITE ${drover_staged}/${unit} "${text}")
    file (INSTALL ${drover_staged}/${unit} DESTINATION ${drover_unitdir}
          PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
endforeach ()

#   The settings: an admin's edited file is kept (the new defaults are in
#   the build tree and in `drover broker --print-config`); dpkg handles the
#   package's copy as a conffile
set (drover_cfg "$ENV{DESTDIR}${drover_etc}/drover.cfg")
if (EXISTS ${drover_cfg})
    file (READ ${drover_cfg} old)
    file (READ ${DROVER_PACKAGE_CFG} new)
    if (NOT old STREQUAL new)
        message (STATUS "Keeping: ${drover_cfg} (edited; the defaults are in ${DROVER_PACKAGE_CFG})")
        return ()
    endif ()
endif ()
file (INSTALL ${DROVER_PACKAGE_CFG} DESTINATION ${drover_etc}
      PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
