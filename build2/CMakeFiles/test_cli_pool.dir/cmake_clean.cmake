file(REMOVE_RECURSE
  "CMakeFiles/test_cli_pool.dir/tests/test_cli_pool.c.o"
  "CMakeFiles/test_cli_pool.dir/tests/test_cli_pool.c.o.d"
  "CMakeFiles/test_cli_pool.dir/tests/testutil.c.o"
  "CMakeFiles/test_cli_pool.dir/tests/testutil.c.o.d"
  "test_cli_pool"
  "test_cli_pool.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_cli_pool.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
