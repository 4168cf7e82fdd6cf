
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/wt/actor/src/worker/drover_agent.c" "CMakeFiles/drover_worker.dir/src/worker/drover_agent.c.o" "gcc" "CMakeFiles/drover_worker.dir/src/worker/drover_agent.c.o.d"
  "/work/wt/actor/src/worker/drover_capture.c" "CMakeFiles/drover_worker.dir/src/worker/drover_capture.c.o" "gcc" "CMakeFiles/drover_worker.dir/src/worker/drover_capture.c.o.d"
  "/work/wt/actor/src/worker/drover_confine.c" "CMakeFiles/drover_worker.dir/src/worker/drover_confine.c.o" "gcc" "CMakeFiles/drover_worker.dir/src/worker/drover_confine.c.o.d"
  "/work/wt/actor/src/worker/drover_runner.c" "CMakeFiles/drover_worker.dir/src/worker/drover_runner.c.o" "gcc" "CMakeFiles/drover_worker.dir/src/worker/drover_runner.c.o.d"
  "/work/wt/actor/src/worker/drover_spawner.c" "CMakeFiles/drover_worker.dir/src/worker/drover_spawner.c.o" "gcc" "CMakeFiles/drover_worker.dir/src/worker/drover_spawner.c.o.d"
  "/work/wt/actor/src/worker/drover_stats.c" "CMakeFiles/drover_worker.dir/src/worker/drover_stats.c.o" "gcc" "CMakeFiles/drover_worker.dir/src/worker/drover_stats.c.o.d"
  "/work/wt/actor/src/worker/drover_taskenv.c" "CMakeFiles/drover_worker.dir/src/worker/drover_taskenv.c.o" "gcc" "CMakeFiles/drover_worker.dir/src/worker/drover_taskenv.c.o.d"
  "/work/wt/actor/src/worker/drover_worker.c" "CMakeFiles/drover_worker.dir/src/worker/drover_worker.c.o" "gcc" "CMakeFiles/drover_worker.dir/src/worker/drover_worker.c.o.d"
  "/work/wt/actor/src/worker/drover_worker_uplink.c" "CMakeFiles/drover_worker.dir/src/worker/drover_worker_uplink.c.o" "gcc" "CMakeFiles/drover_worker.dir/src/worker/drover_worker_uplink.c.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/wt/actor/build2/CMakeFiles/drover_common.dir/DependInfo.cmake"
  "/work/wt/actor/build2/CMakeFiles/drover_protocol.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
