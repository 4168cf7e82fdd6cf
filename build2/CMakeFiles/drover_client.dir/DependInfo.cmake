
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/wt/actor/src/client/drover_client.c" "CMakeFiles/drover_client.dir/src/client/drover_client.c.o" "gcc" "CMakeFiles/drover_client.dir/src/client/drover_client.c.o.d"
  "/work/wt/actor/src/client/drover_client_explain.c" "CMakeFiles/drover_client.dir/src/client/drover_client_explain.c.o" "gcc" "CMakeFiles/drover_client.dir/src/client/drover_client_explain.c.o.d"
  "/work/wt/actor/src/client/drover_client_pool.c" "CMakeFiles/drover_client.dir/src/client/drover_client_pool.c.o" "gcc" "CMakeFiles/drover_client.dir/src/client/drover_client_pool.c.o.d"
  "/work/wt/actor/src/client/drover_client_submit.c" "CMakeFiles/drover_client.dir/src/client/drover_client_submit.c.o" "gcc" "CMakeFiles/drover_client.dir/src/client/drover_client_submit.c.o.d"
  "/work/wt/actor/src/client/drover_client_wait.c" "CMakeFiles/drover_client.dir/src/client/drover_client_wait.c.o" "gcc" "CMakeFiles/drover_client.dir/src/client/drover_client_wait.c.o.d"
  "/work/wt/actor/src/client/drover_topview.c" "CMakeFiles/drover_client.dir/src/client/drover_topview.c.o" "gcc" "CMakeFiles/drover_client.dir/src/client/drover_topview.c.o.d"
  "/work/wt/actor/src/client/drover_waitset.c" "CMakeFiles/drover_client.dir/src/client/drover_waitset.c.o" "gcc" "CMakeFiles/drover_client.dir/src/client/drover_waitset.c.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/wt/actor/build2/CMakeFiles/drover_common.dir/DependInfo.cmake"
  "/work/wt/actor/build2/CMakeFiles/drover_protocol.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
