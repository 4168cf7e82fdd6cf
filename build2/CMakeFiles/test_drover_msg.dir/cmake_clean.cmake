file(REMOVE_RECURSE
  "CMakeFiles/test_drover_msg.dir/tests/test_drover_msg.c.o"
  "CMakeFiles/test_drover_msg.dir/tests/test_drover_msg.c.o.d"
  "CMakeFiles/test_drover_msg.dir/tests/testcodec.c.o"
  "CMakeFiles/test_drover_msg.dir/tests/testcodec.c.o.d"
  "CMakeFiles/test_drover_msg.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_msg.dir/tests/testutil.c.o.d"
  "test_drover_msg"
  "test_drover_msg.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_msg.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
