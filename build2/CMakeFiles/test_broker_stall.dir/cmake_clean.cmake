file(REMOVE_RECURSE
  "CMakeFiles/test_broker_stall.dir/tests/test_broker_stall.c.o"
  "CMakeFiles/test_broker_stall.dir/tests/test_broker_stall.c.o.d"
  "CMakeFiles/test_broker_stall.dir/tests/testutil.c.o"
  "CMakeFiles/test_broker_stall.dir/tests/testutil.c.o.d"
  "test_broker_stall"
  "test_broker_stall.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_broker_stall.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
