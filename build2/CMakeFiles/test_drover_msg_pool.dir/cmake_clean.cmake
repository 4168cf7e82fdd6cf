file(REMOVE_RECURSE
  "CMakeFiles/test_drover_msg_pool.dir/tests/test_drover_msg_pool.c.o"
  "CMakeFiles/test_drover_msg_pool.dir/tests/test_drover_msg_pool.c.o.d"
  "CMakeFiles/test_drover_msg_pool.dir/tests/testcodec.c.o"
  "CMakeFiles/test_drover_msg_pool.dir/tests/testcodec.c.o.d"
  "CMakeFiles/test_drover_msg_pool.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_msg_pool.dir/tests/testutil.c.o.d"
  "test_drover_msg_pool"
  "test_drover_msg_pool.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_msg_pool.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
