file(REMOVE_RECURSE
  "CMakeFiles/test_cli_surprises.dir/tests/test_cli_surprises.c.o"
  "CMakeFiles/test_cli_surprises.dir/tests/test_cli_surprises.c.o.d"
  "CMakeFiles/test_cli_surprises.dir/tests/testutil.c.o"
  "CMakeFiles/test_cli_surprises.dir/tests/testutil.c.o.d"
  "test_cli_surprises"
  "test_cli_surprises.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_cli_surprises.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
