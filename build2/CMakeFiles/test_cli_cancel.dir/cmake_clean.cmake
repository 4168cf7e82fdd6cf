file(REMOVE_RECURSE
  "CMakeFiles/test_cli_cancel.dir/tests/test_cli_cancel.c.o"
  "CMakeFiles/test_cli_cancel.dir/tests/test_cli_cancel.c.o.d"
  "CMakeFiles/test_cli_cancel.dir/tests/testutil.c.o"
  "CMakeFiles/test_cli_cancel.dir/tests/testutil.c.o.d"
  "test_cli_cancel"
  "test_cli_cancel.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_cli_cancel.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
