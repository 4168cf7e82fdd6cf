file(REMOVE_RECURSE
  "CMakeFiles/drover_protocol.dir/protocol/drover_event.c.o"
  "CMakeFiles/drover_protocol.dir/protocol/drover_event.c.o.d"
  "CMakeFiles/drover_protocol.dir/protocol/drover_exec.c.o"
  "CMakeFiles/drover_protocol.dir/protocol/drover_exec.c.o.d"
  "CMakeFiles/drover_protocol.dir/protocol/drover_mpack.c.o"
  "CMakeFiles/drover_protocol.dir/protocol/drover_mpack.c.o.d"
  "CMakeFiles/drover_protocol.dir/protocol/drover_msg.c.o"
  "CMakeFiles/drover_protocol.dir/protocol/drover_msg.c.o.d"
  "CMakeFiles/drover_protocol.dir/protocol/drover_msg_fields.c.o"
  "CMakeFiles/drover_protocol.dir/protocol/drover_msg_fields.c.o.d"
  "CMakeFiles/drover_protocol.dir/protocol/drover_msg_pool.c.o"
  "CMakeFiles/drover_protocol.dir/protocol/drover_msg_pool.c.o.d"
  "CMakeFiles/drover_protocol.dir/protocol/drover_taskinfo.c.o"
  "CMakeFiles/drover_protocol.dir/protocol/drover_taskinfo.c.o.d"
  "CMakeFiles/drover_protocol.dir/protocol/drover_why.c.o"
  "CMakeFiles/drover_protocol.dir/protocol/drover_why.c.o.d"
  "libdrover_protocol.a"
  "libdrover_protocol.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/drover_protocol.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
