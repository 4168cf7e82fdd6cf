file(REMOVE_RECURSE
  "CMakeFiles/drover_client.dir/src/client/drover_client.c.o"
  "CMakeFiles/drover_client.dir/src/client/drover_client.c.o.d"
  "CMakeFiles/drover_client.dir/src/client/drover_client_explain.c.o"
  "CMakeFiles/drover_client.dir/src/client/drover_client_explain.c.o.d"
  "CMakeFiles/drover_client.dir/src/client/drover_client_pool.c.o"
  "CMakeFiles/drover_client.dir/src/client/drover_client_pool.c.o.d"
  "CMakeFiles/drover_client.dir/src/client/drover_client_submit.c.o"
  "CMakeFiles/drover_client.dir/src/client/drover_client_submit.c.o.d"
  "CMakeFiles/drover_client.dir/src/client/drover_client_wait.c.o"
  "CMakeFiles/drover_client.dir/src/client/drover_client_wait.c.o.d"
  "CMakeFiles/drover_client.dir/src/client/drover_topview.c.o"
  "CMakeFiles/drover_client.dir/src/client/drover_topview.c.o.d"
  "CMakeFiles/drover_client.dir/src/client/drover_waitset.c.o"
  "CMakeFiles/drover_client.dir/src/client/drover_waitset.c.o.d"
  "libdrover_client.a"
  "libdrover_client.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/drover_client.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
