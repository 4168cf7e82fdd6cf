file(REMOVE_RECURSE
  "CMakeFiles/drover_worker.dir/src/worker/drover_agent.c.o"
  "CMakeFiles/drover_worker.dir/src/worker/drover_agent.c.o.d"
  "CMakeFiles/drover_worker.dir/src/worker/drover_capture.c.o"
  "CMakeFiles/drover_worker.dir/src/worker/drover_capture.c.o.d"
  "CMakeFiles/drover_worker.dir/src/worker/drover_confine.c.o"
  "CMakeFiles/drover_worker.dir/src/worker/drover_confine.c.o.d"
  "CMakeFiles/drover_worker.dir/src/worker/drover_runner.c.o"
  "CMakeFiles/drover_worker.dir/src/worker/drover_runner.c.o.d"
  "CMakeFiles/drover_worker.dir/src/worker/drover_spawner.c.o"
  "CMakeFiles/drover_worker.dir/src/worker/drover_spawner.c.o.d"
  "CMakeFiles/drover_worker.dir/src/worker/drover_stats.c.o"
  "CMakeFiles/drover_worker.dir/src/worker/drover_stats.c.o.d"
  "CMakeFiles/drover_worker.dir/src/worker/drover_taskenv.c.o"
  "CMakeFiles/drover_worker.dir/src/worker/drover_taskenv.c.o.d"
  "CMakeFiles/drover_worker.dir/src/worker/drover_worker.c.o"
  "CMakeFiles/drover_worker.dir/src/worker/drover_worker.c.o.d"
  "CMakeFiles/drover_worker.dir/src/worker/drover_worker_uplink.c.o"
  "CMakeFiles/drover_worker.dir/src/worker/drover_worker_uplink.c.o.d"
  "libdrover_worker.a"
  "libdrover_worker.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/drover_worker.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
