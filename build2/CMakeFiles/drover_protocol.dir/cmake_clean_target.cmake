file(REMOVE_RECURSE
  "libdrover_protocol.a"
)
