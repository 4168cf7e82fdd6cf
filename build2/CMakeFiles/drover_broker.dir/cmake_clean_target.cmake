file(REMOVE_RECURSE
  "libdrover_broker.a"
)
