file(REMOVE_RECURSE
  "CMakeFiles/test_broker_cli.dir/tests/test_broker_cli.c.o"
  "CMakeFiles/test_broker_cli.dir/tests/test_broker_cli.c.o.d"
  "CMakeFiles/test_broker_cli.dir/tests/testutil.c.o"
  "CMakeFiles/test_broker_cli.dir/tests/testutil.c.o.d"
  "test_broker_cli"
  "test_broker_cli.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_broker_cli.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
