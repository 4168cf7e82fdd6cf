file(REMOVE_RECURSE
  "CMakeFiles/test_cli_keygen.dir/tests/test_cli_keygen.c.o"
  "CMakeFiles/test_cli_keygen.dir/tests/test_cli_keygen.c.o.d"
  "CMakeFiles/test_cli_keygen.dir/tests/testutil.c.o"
  "CMakeFiles/test_cli_keygen.dir/tests/testutil.c.o.d"
  "test_cli_keygen"
  "test_cli_keygen.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_cli_keygen.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
