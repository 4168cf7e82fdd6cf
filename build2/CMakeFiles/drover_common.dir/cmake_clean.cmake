file(REMOVE_RECURSE
  "CMakeFiles/drover_common.dir/src/common/drover_config.c.o"
  "CMakeFiles/drover_common.dir/src/common/drover_config.c.o.d"
  "CMakeFiles/drover_common.dir/src/common/drover_handshake.c.o"
  "CMakeFiles/drover_common.dir/src/common/drover_handshake.c.o.d"
  "CMakeFiles/drover_common.dir/src/common/drover_keys.c.o"
  "CMakeFiles/drover_common.dir/src/common/drover_keys.c.o.d"
  "CMakeFiles/drover_common.dir/src/common/drover_log.c.o"
  "CMakeFiles/drover_common.dir/src/common/drover_log.c.o.d"
  "CMakeFiles/drover_common.dir/src/common/drover_poller.c.o"
  "CMakeFiles/drover_common.dir/src/common/drover_poller.c.o.d"
  "libdrover_common.a"
  "libdrover_common.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/drover_common.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
