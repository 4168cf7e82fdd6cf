file(REMOVE_RECURSE
  "CMakeFiles/test_drover_client.dir/tests/test_drover_client.c.o"
  "CMakeFiles/test_drover_client.dir/tests/test_drover_client.c.o.d"
  "CMakeFiles/test_drover_client.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_client.dir/tests/testutil.c.o.d"
  "test_drover_client"
  "test_drover_client.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_client.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
