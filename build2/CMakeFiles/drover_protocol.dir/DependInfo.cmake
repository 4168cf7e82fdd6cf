
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/wt/actor/protocol/drover_event.c" "CMakeFiles/drover_protocol.dir/protocol/drover_event.c.o" "gcc" "CMakeFiles/drover_protocol.dir/protocol/drover_event.c.o.d"
  "/work/wt/actor/protocol/drover_exec.c" "CMakeFiles/drover_protocol.dir/protocol/drover_exec.c.o" "gcc" "CMakeFiles/drover_protocol.dir/protocol/drover_exec.c.o.d"
  "/work/wt/actor/protocol/drover_mpack.c" "CMakeFiles/drover_protocol.dir/protocol/drover_mpack.c.o" "gcc" "CMakeFiles/drover_protocol.dir/protocol/drover_mpack.c.o.d"
  "/work/wt/actor/protocol/drover_msg.c" "CMakeFiles/drover_protocol.dir/protocol/drover_msg.c.o" "gcc" "CMakeFiles/drover_protocol.dir/protocol/drover_msg.c.o.d"
  "/work/wt/actor/protocol/drover_msg_fields.c" "CMakeFiles/drover_protocol.dir/protocol/drover_msg_fields.c.o" "gcc" "CMakeFiles/drover_protocol.dir/protocol/drover_msg_fields.c.o.d"
  "/work/wt/actor/protocol/drover_msg_pool.c" "CMakeFiles/drover_protocol.dir/protocol/drover_msg_pool.c.o" "gcc" "CMakeFiles/drover_protocol.dir/protocol/drover_msg_pool.c.o.d"
  "/work/wt/actor/protocol/drover_taskinfo.c" "CMakeFiles/drover_protocol.dir/protocol/drover_taskinfo.c.o" "gcc" "CMakeFiles/drover_protocol.dir/protocol/drover_taskinfo.c.o.d"
  "/work/wt/actor/protocol/drover_why.c" "CMakeFiles/drover_protocol.dir/protocol/drover_why.c.o" "gcc" "CMakeFiles/drover_protocol.dir/protocol/drover_why.c.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
