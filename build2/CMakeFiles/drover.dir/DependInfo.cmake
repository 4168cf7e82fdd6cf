
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/wt/actor/tools/drover.c" "CMakeFiles/drover.dir/tools/drover.c.o" "gcc" "CMakeFiles/drover.dir/tools/drover.c.o.d"
  "/work/wt/actor/tools/drover_benchmark.c" "CMakeFiles/drover.dir/tools/drover_benchmark.c.o" "gcc" "CMakeFiles/drover.dir/tools/drover_benchmark.c.o.d"
  "/work/wt/actor/tools/drover_benchmark_curve.c" "CMakeFiles/drover.dir/tools/drover_benchmark_curve.c.o" "gcc" "CMakeFiles/drover.dir/tools/drover_benchmark_curve.c.o.d"
  "/work/wt/actor/tools/drover_benchmark_durable.c" "CMakeFiles/drover.dir/tools/drover_benchmark_durable.c.o" "gcc" "CMakeFiles/drover.dir/tools/drover_benchmark_durable.c.o.d"
  "/work/wt/actor/tools/drover_benchmark_flags.c" "CMakeFiles/drover.dir/tools/drover_benchmark_flags.c.o" "gcc" "CMakeFiles/drover.dir/tools/drover_benchmark_flags.c.o.d"
  "/work/wt/actor/tools/drover_benchmark_pool.c" "CMakeFiles/drover.dir/tools/drover_benchmark_pool.c.o" "gcc" "CMakeFiles/drover.dir/tools/drover_benchmark_pool.c.o.d"
  "/work/wt/actor/tools/drover_benchmark_shell.c" "CMakeFiles/drover.dir/tools/drover_benchmark_shell.c.o" "gcc" "CMakeFiles/drover.dir/tools/drover_benchmark_shell.c.o.d"
  "/work/wt/actor/tools/drover_benchmark_sim.c" "CMakeFiles/drover.dir/tools/drover_benchmark_sim.c.o" "gcc" "CMakeFiles/drover.dir/tools/drover_benchmark_sim.c.o.d"
  "/work/wt/actor/tools/drover_cli_admin.c" "CMakeFiles/drover.dir/tools/drover_cli_admin.c.o" "gcc" "CMakeFiles/drover.dir/tools/drover_cli_admin.c.o.d"
  "/work/wt/actor/tools/drover_cli_cancel.c" "CMakeFiles/drover.dir/tools/drover_cli_cancel.c.o" "gcc" "CMakeFiles/drover.dir/tools/drover_cli_cancel.c.o.d"
  "/work/wt/actor/tools/drover_cli_events.c" "CMakeFiles/drover.dir/tools/drover_cli_events.c.o" "gcc" "CMakeFiles/drover.dir/tools/drover_cli_events.c.o.d"
  "/work/wt/actor/tools/drover_cli_explain.c" "CMakeFiles/drover.dir/tools/drover_cli_explain.c.o" "gcc" "CMakeFiles/drover.dir/tools/drover_cli_explain.c.o.d"
  "/work/wt/actor/tools/drover_cli_json.c" "CMakeFiles/drover.dir/tools/drover_cli_json.c.o" "gcc" "CMakeFiles/drover.dir/tools/drover_cli_json.c.o.d"
  "/work/wt/actor/tools/drover_cli_keygen.c" "CMakeFiles/drover.dir/tools/drover_cli_keygen.c.o" "gcc" "CMakeFiles/drover.dir/tools/drover_cli_keygen.c.o.d"
  "/work/wt/actor/tools/drover_cli_pool.c" "CMakeFiles/drover.dir/tools/drover_cli_pool.c.o" "gcc" "CMakeFiles/drover.dir/tools/drover_cli_pool.c.o.d"
  "/work/wt/actor/tools/drover_cli_show.c" "CMakeFiles/drover.dir/tools/drover_cli_show.c.o" "gcc" "CMakeFiles/drover.dir/tools/drover_cli_show.c.o.d"
  "/work/wt/actor/tools/drover_cli_submit.c" "CMakeFiles/drover.dir/tools/drover_cli_submit.c.o" "gcc" "CMakeFiles/drover.dir/tools/drover_cli_submit.c.o.d"
  "/work/wt/actor/tools/drover_cli_table.c" "CMakeFiles/drover.dir/tools/drover_cli_table.c.o" "gcc" "CMakeFiles/drover.dir/tools/drover_cli_table.c.o.d"
  "/work/wt/actor/tools/drover_cli_top.c" "CMakeFiles/drover.dir/tools/drover_cli_top.c.o" "gcc" "CMakeFiles/drover.dir/tools/drover_cli_top.c.o.d"
  "/work/wt/actor/tools/drover_cli_wait.c" "CMakeFiles/drover.dir/tools/drover_cli_wait.c.o" "gcc" "CMakeFiles/drover.dir/tools/drover_cli_wait.c.o.d"
  "/work/wt/actor/tools/drover_getpid.c" "CMakeFiles/drover.dir/tools/drover_getpid.c.o" "gcc" "CMakeFiles/drover.dir/tools/drover_getpid.c.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/wt/actor/build2/CMakeFiles/drover_broker.dir/DependInfo.cmake"
  "/work/wt/actor/build2/CMakeFiles/drover_worker.dir/DependInfo.cmake"
  "/work/wt/actor/build2/CMakeFiles/drover_client.dir/DependInfo.cmake"
  "/work/wt/actor/build2/CMakeFiles/drover_common.dir/DependInfo.cmake"
  "/work/wt/actor/build2/CMakeFiles/drover_protocol.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
