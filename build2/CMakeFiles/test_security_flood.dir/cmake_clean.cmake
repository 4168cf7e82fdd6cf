file(REMOVE_RECURSE
  "CMakeFiles/test_security_flood.dir/tests/test_security_flood.c.o"
  "CMakeFiles/test_security_flood.dir/tests/test_security_flood.c.o.d"
  "CMakeFiles/test_security_flood.dir/tests/testutil.c.o"
  "CMakeFiles/test_security_flood.dir/tests/testutil.c.o.d"
  "test_security_flood"
  "test_security_flood.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_security_flood.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
