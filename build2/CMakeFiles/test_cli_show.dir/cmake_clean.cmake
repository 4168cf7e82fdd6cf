file(REMOVE_RECURSE
  "CMakeFiles/test_cli_show.dir/tests/test_cli_show.c.o"
  "CMakeFiles/test_cli_show.dir/tests/test_cli_show.c.o.d"
  "CMakeFiles/test_cli_show.dir/tests/testutil.c.o"
  "CMakeFiles/test_cli_show.dir/tests/testutil.c.o.d"
  "test_cli_show"
  "test_cli_show.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_cli_show.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
