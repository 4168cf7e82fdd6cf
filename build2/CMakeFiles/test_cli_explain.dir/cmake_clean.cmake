file(REMOVE_RECURSE
  "CMakeFiles/test_cli_explain.dir/tests/test_cli_explain.c.o"
  "CMakeFiles/test_cli_explain.dir/tests/test_cli_explain.c.o.d"
  "CMakeFiles/test_cli_explain.dir/tests/testutil.c.o"
  "CMakeFiles/test_cli_explain.dir/tests/testutil.c.o.d"
  "test_cli_explain"
  "test_cli_explain.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_cli_explain.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
