file(REMOVE_RECURSE
  "CMakeFiles/test_pool_command.dir/tests/test_pool_command.c.o"
  "CMakeFiles/test_pool_command.dir/tests/test_pool_command.c.o.d"
  "CMakeFiles/test_pool_command.dir/tests/testutil.c.o"
  "CMakeFiles/test_pool_command.dir/tests/testutil.c.o.d"
  "test_pool_command"
  "test_pool_command.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_pool_command.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
