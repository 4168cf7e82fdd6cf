file(REMOVE_RECURSE
  "CMakeFiles/test_cli_top.dir/tests/test_cli_top.c.o"
  "CMakeFiles/test_cli_top.dir/tests/test_cli_top.c.o.d"
  "CMakeFiles/test_cli_top.dir/tests/testutil.c.o"
  "CMakeFiles/test_cli_top.dir/tests/testutil.c.o.d"
  "test_cli_top"
  "test_cli_top.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_cli_top.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
