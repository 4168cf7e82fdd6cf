file(REMOVE_RECURSE
  "libdrover_worker.a"
)
