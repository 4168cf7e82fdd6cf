file(REMOVE_RECURSE
  "CMakeFiles/test_failover.dir/tests/test_failover.c.o"
  "CMakeFiles/test_failover.dir/tests/test_failover.c.o.d"
  "CMakeFiles/test_failover.dir/tests/testutil.c.o"
  "CMakeFiles/test_failover.dir/tests/testutil.c.o.d"
  "test_failover"
  "test_failover.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_failover.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
