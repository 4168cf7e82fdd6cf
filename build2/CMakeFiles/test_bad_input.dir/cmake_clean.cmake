file(REMOVE_RECURSE
  "CMakeFiles/test_bad_input.dir/tests/test_bad_input.c.o"
  "CMakeFiles/test_bad_input.dir/tests/test_bad_input.c.o.d"
  "CMakeFiles/test_bad_input.dir/tests/testutil.c.o"
  "CMakeFiles/test_bad_input.dir/tests/testutil.c.o.d"
  "test_bad_input"
  "test_bad_input.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_bad_input.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
