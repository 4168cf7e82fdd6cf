file(REMOVE_RECURSE
  "CMakeFiles/test_durable_restart.dir/tests/test_durable_restart.c.o"
  "CMakeFiles/test_durable_restart.dir/tests/test_durable_restart.c.o.d"
  "CMakeFiles/test_durable_restart.dir/tests/testutil.c.o"
  "CMakeFiles/test_durable_restart.dir/tests/testutil.c.o.d"
  "test_durable_restart"
  "test_durable_restart.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_durable_restart.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
