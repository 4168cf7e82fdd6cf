file(REMOVE_RECURSE
  "libdrover_common.a"
)
