file(REMOVE_RECURSE
  "CMakeFiles/test_pool_local.dir/tests/test_pool_local.c.o"
  "CMakeFiles/test_pool_local.dir/tests/test_pool_local.c.o.d"
  "CMakeFiles/test_pool_local.dir/tests/testutil.c.o"
  "CMakeFiles/test_pool_local.dir/tests/testutil.c.o.d"
  "test_pool_local"
  "test_pool_local.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_pool_local.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
