file(REMOVE_RECURSE
  "CMakeFiles/test_cli_events.dir/tests/test_cli_events.c.o"
  "CMakeFiles/test_cli_events.dir/tests/test_cli_events.c.o.d"
  "CMakeFiles/test_cli_events.dir/tests/testutil.c.o"
  "CMakeFiles/test_cli_events.dir/tests/testutil.c.o.d"
  "test_cli_events"
  "test_cli_events.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_cli_events.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
