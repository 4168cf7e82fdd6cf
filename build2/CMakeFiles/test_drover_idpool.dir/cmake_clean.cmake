file(REMOVE_RECURSE
  "CMakeFiles/test_drover_idpool.dir/tests/test_drover_idpool.c.o"
  "CMakeFiles/test_drover_idpool.dir/tests/test_drover_idpool.c.o.d"
  "CMakeFiles/test_drover_idpool.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_idpool.dir/tests/testutil.c.o.d"
  "test_drover_idpool"
  "test_drover_idpool.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_idpool.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
