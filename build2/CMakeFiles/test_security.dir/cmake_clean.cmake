file(REMOVE_RECURSE
  "CMakeFiles/test_security.dir/tests/test_security.c.o"
  "CMakeFiles/test_security.dir/tests/test_security.c.o.d"
  "CMakeFiles/test_security.dir/tests/testutil.c.o"
  "CMakeFiles/test_security.dir/tests/testutil.c.o.d"
  "test_security"
  "test_security.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_security.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
