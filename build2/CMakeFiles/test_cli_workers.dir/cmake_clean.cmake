file(REMOVE_RECURSE
  "CMakeFiles/test_cli_workers.dir/tests/test_cli_workers.c.o"
  "CMakeFiles/test_cli_workers.dir/tests/test_cli_workers.c.o.d"
  "CMakeFiles/test_cli_workers.dir/tests/testutil.c.o"
  "CMakeFiles/test_cli_workers.dir/tests/testutil.c.o.d"
  "test_cli_workers"
  "test_cli_workers.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_cli_workers.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
