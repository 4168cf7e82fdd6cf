
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/wt/actor/src/common/drover_config.c" "CMakeFiles/drover_common.dir/src/common/drover_config.c.o" "gcc" "CMakeFiles/drover_common.dir/src/common/drover_config.c.o.d"
  "/work/wt/actor/src/common/drover_handshake.c" "CMakeFiles/drover_common.dir/src/common/drover_handshake.c.o" "gcc" "CMakeFiles/drover_common.dir/src/common/drover_handshake.c.o.d"
  "/work/wt/actor/src/common/drover_keys.c" "CMakeFiles/drover_common.dir/src/common/drover_keys.c.o" "gcc" "CMakeFiles/drover_common.dir/src/common/drover_keys.c.o.d"
  "/work/wt/actor/src/common/drover_log.c" "CMakeFiles/drover_common.dir/src/common/drover_log.c.o" "gcc" "CMakeFiles/drover_common.dir/src/common/drover_log.c.o.d"
  "/work/wt/actor/src/common/drover_poller.c" "CMakeFiles/drover_common.dir/src/common/drover_poller.c.o" "gcc" "CMakeFiles/drover_common.dir/src/common/drover_poller.c.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/wt/actor/build2/CMakeFiles/drover_protocol.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
