
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/wt/actor/actors/drover_assign.c" "CMakeFiles/drover_broker.dir/actors/drover_assign.c.o" "gcc" "CMakeFiles/drover_broker.dir/actors/drover_assign.c.o.d"
  "/work/wt/actor/actors/drover_health.c" "CMakeFiles/drover_broker.dir/actors/drover_health.c.o" "gcc" "CMakeFiles/drover_broker.dir/actors/drover_health.c.o.d"
  "/work/wt/actor/actors/drover_metrics.c" "CMakeFiles/drover_broker.dir/actors/drover_metrics.c.o" "gcc" "CMakeFiles/drover_broker.dir/actors/drover_metrics.c.o.d"
  "/work/wt/actor/actors/drover_poolactor.c" "CMakeFiles/drover_broker.dir/actors/drover_poolactor.c.o" "gcc" "CMakeFiles/drover_broker.dir/actors/drover_poolactor.c.o.d"
  "/work/wt/actor/actors/drover_probation.c" "CMakeFiles/drover_broker.dir/actors/drover_probation.c.o" "gcc" "CMakeFiles/drover_broker.dir/actors/drover_probation.c.o.d"
  "/work/wt/actor/actors/drover_schedq.c" "CMakeFiles/drover_broker.dir/actors/drover_schedq.c.o" "gcc" "CMakeFiles/drover_broker.dir/actors/drover_schedq.c.o.d"
  "/work/wt/actor/actors/drover_store.c" "CMakeFiles/drover_broker.dir/actors/drover_store.c.o" "gcc" "CMakeFiles/drover_broker.dir/actors/drover_store.c.o.d"
  "/work/wt/actor/src/broker/drover_actor.c" "CMakeFiles/drover_broker.dir/src/broker/drover_actor.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_actor.c.o.d"
  "/work/wt/actor/src/broker/drover_adminbook.c" "CMakeFiles/drover_broker.dir/src/broker/drover_adminbook.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_adminbook.c.o.d"
  "/work/wt/actor/src/broker/drover_backend.c" "CMakeFiles/drover_broker.dir/src/broker/drover_backend.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_backend.c.o.d"
  "/work/wt/actor/src/broker/drover_broker.c" "CMakeFiles/drover_broker.dir/src/broker/drover_broker.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_broker.c.o.d"
  "/work/wt/actor/src/broker/drover_brokerflags.c" "CMakeFiles/drover_broker.dir/src/broker/drover_brokerflags.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_brokerflags.c.o.d"
  "/work/wt/actor/src/broker/drover_change.c" "CMakeFiles/drover_broker.dir/src/broker/drover_change.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_change.c.o.d"
  "/work/wt/actor/src/broker/drover_conns.c" "CMakeFiles/drover_broker.dir/src/broker/drover_conns.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_conns.c.o.d"
  "/work/wt/actor/src/broker/drover_connwatch.c" "CMakeFiles/drover_broker.dir/src/broker/drover_connwatch.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_connwatch.c.o.d"
  "/work/wt/actor/src/broker/drover_demands.c" "CMakeFiles/drover_broker.dir/src/broker/drover_demands.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_demands.c.o.d"
  "/work/wt/actor/src/broker/drover_eventpack.c" "CMakeFiles/drover_broker.dir/src/broker/drover_eventpack.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_eventpack.c.o.d"
  "/work/wt/actor/src/broker/drover_eventstream.c" "CMakeFiles/drover_broker.dir/src/broker/drover_eventstream.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_eventstream.c.o.d"
  "/work/wt/actor/src/broker/drover_gone.c" "CMakeFiles/drover_broker.dir/src/broker/drover_gone.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_gone.c.o.d"
  "/work/wt/actor/src/broker/drover_guard.c" "CMakeFiles/drover_broker.dir/src/broker/drover_guard.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_guard.c.o.d"
  "/work/wt/actor/src/broker/drover_idhash.c" "CMakeFiles/drover_broker.dir/src/broker/drover_idhash.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_idhash.c.o.d"
  "/work/wt/actor/src/broker/drover_idheap.c" "CMakeFiles/drover_broker.dir/src/broker/drover_idheap.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_idheap.c.o.d"
  "/work/wt/actor/src/broker/drover_idpool.c" "CMakeFiles/drover_broker.dir/src/broker/drover_idpool.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_idpool.c.o.d"
  "/work/wt/actor/src/broker/drover_keyring.c" "CMakeFiles/drover_broker.dir/src/broker/drover_keyring.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_keyring.c.o.d"
  "/work/wt/actor/src/broker/drover_leases.c" "CMakeFiles/drover_broker.dir/src/broker/drover_leases.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_leases.c.o.d"
  "/work/wt/actor/src/broker/drover_liveness.c" "CMakeFiles/drover_broker.dir/src/broker/drover_liveness.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_liveness.c.o.d"
  "/work/wt/actor/src/broker/drover_loadreport.c" "CMakeFiles/drover_broker.dir/src/broker/drover_loadreport.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_loadreport.c.o.d"
  "/work/wt/actor/src/broker/drover_metricset.c" "CMakeFiles/drover_broker.dir/src/broker/drover_metricset.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_metricset.c.o.d"
  "/work/wt/actor/src/broker/drover_outbox.c" "CMakeFiles/drover_broker.dir/src/broker/drover_outbox.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_outbox.c.o.d"
  "/work/wt/actor/src/broker/drover_owners.c" "CMakeFiles/drover_broker.dir/src/broker/drover_owners.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_owners.c.o.d"
  "/work/wt/actor/src/broker/drover_pool.c" "CMakeFiles/drover_broker.dir/src/broker/drover_pool.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_pool.c.o.d"
  "/work/wt/actor/src/broker/drover_poolcommand.c" "CMakeFiles/drover_broker.dir/src/broker/drover_poolcommand.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_poolcommand.c.o.d"
  "/work/wt/actor/src/broker/drover_pooldriver.c" "CMakeFiles/drover_broker.dir/src/broker/drover_pooldriver.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_pooldriver.c.o.d"
  "/work/wt/actor/src/broker/drover_poollocal.c" "CMakeFiles/drover_broker.dir/src/broker/drover_poollocal.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_poollocal.c.o.d"
  "/work/wt/actor/src/broker/drover_poolplan.c" "CMakeFiles/drover_broker.dir/src/broker/drover_poolplan.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_poolplan.c.o.d"
  "/work/wt/actor/src/broker/drover_poolwire.c" "CMakeFiles/drover_broker.dir/src/broker/drover_poolwire.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_poolwire.c.o.d"
  "/work/wt/actor/src/broker/drover_probationset.c" "CMakeFiles/drover_broker.dir/src/broker/drover_probationset.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_probationset.c.o.d"
  "/work/wt/actor/src/broker/drover_ring.c" "CMakeFiles/drover_broker.dir/src/broker/drover_ring.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_ring.c.o.d"
  "/work/wt/actor/src/broker/drover_routes.c" "CMakeFiles/drover_broker.dir/src/broker/drover_routes.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_routes.c.o.d"
  "/work/wt/actor/src/broker/drover_sched.c" "CMakeFiles/drover_broker.dir/src/broker/drover_sched.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_sched.c.o.d"
  "/work/wt/actor/src/broker/drover_schedexplain.c" "CMakeFiles/drover_broker.dir/src/broker/drover_schedexplain.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_schedexplain.c.o.d"
  "/work/wt/actor/src/broker/drover_schedleases.c" "CMakeFiles/drover_broker.dir/src/broker/drover_schedleases.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_schedleases.c.o.d"
  "/work/wt/actor/src/broker/drover_schedworkers.c" "CMakeFiles/drover_broker.dir/src/broker/drover_schedworkers.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_schedworkers.c.o.d"
  "/work/wt/actor/src/broker/drover_sqlite.c" "CMakeFiles/drover_broker.dir/src/broker/drover_sqlite.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_sqlite.c.o.d"
  "/work/wt/actor/src/broker/drover_taskactions.c" "CMakeFiles/drover_broker.dir/src/broker/drover_taskactions.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_taskactions.c.o.d"
  "/work/wt/actor/src/broker/drover_taskhistory.c" "CMakeFiles/drover_broker.dir/src/broker/drover_taskhistory.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_taskhistory.c.o.d"
  "/work/wt/actor/src/broker/drover_taskrecord.c" "CMakeFiles/drover_broker.dir/src/broker/drover_taskrecord.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_taskrecord.c.o.d"
  "/work/wt/actor/src/broker/drover_taskrestore.c" "CMakeFiles/drover_broker.dir/src/broker/drover_taskrestore.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_taskrestore.c.o.d"
  "/work/wt/actor/src/broker/drover_taskresult.c" "CMakeFiles/drover_broker.dir/src/broker/drover_taskresult.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_taskresult.c.o.d"
  "/work/wt/actor/src/broker/drover_taskshow.c" "CMakeFiles/drover_broker.dir/src/broker/drover_taskshow.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_taskshow.c.o.d"
  "/work/wt/actor/src/broker/drover_tasktable.c" "CMakeFiles/drover_broker.dir/src/broker/drover_tasktable.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_tasktable.c.o.d"
  "/work/wt/actor/src/broker/drover_taskworker.c" "CMakeFiles/drover_broker.dir/src/broker/drover_taskworker.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_taskworker.c.o.d"
  "/work/wt/actor/src/broker/drover_waiters.c" "CMakeFiles/drover_broker.dir/src/broker/drover_waiters.c.o" "gcc" "CMakeFiles/drover_broker.dir/src/broker/drover_waiters.c.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/wt/actor/build2/CMakeFiles/drover_common.dir/DependInfo.cmake"
  "/work/wt/actor/build2/CMakeFiles/drover_protocol.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
