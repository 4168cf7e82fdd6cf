file(REMOVE_RECURSE
  "CMakeFiles/test_vanished_broker.dir/tests/test_vanished_broker.c.o"
  "CMakeFiles/test_vanished_broker.dir/tests/test_vanished_broker.c.o.d"
  "CMakeFiles/test_vanished_broker.dir/tests/testutil.c.o"
  "CMakeFiles/test_vanished_broker.dir/tests/testutil.c.o.d"
  "test_vanished_broker"
  "test_vanished_broker.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_vanished_broker.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
