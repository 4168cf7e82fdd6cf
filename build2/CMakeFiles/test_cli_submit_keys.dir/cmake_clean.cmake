file(REMOVE_RECURSE
  "CMakeFiles/test_cli_submit_keys.dir/tests/test_cli_submit_keys.c.o"
  "CMakeFiles/test_cli_submit_keys.dir/tests/test_cli_submit_keys.c.o.d"
  "CMakeFiles/test_cli_submit_keys.dir/tests/testutil.c.o"
  "CMakeFiles/test_cli_submit_keys.dir/tests/testutil.c.o.d"
  "test_cli_submit_keys"
  "test_cli_submit_keys.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_cli_submit_keys.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
