file(REMOVE_RECURSE
  "libdrover_client.a"
)
