file(REMOVE_RECURSE
  "CMakeFiles/test_curve_client.dir/tests/test_curve_client.c.o"
  "CMakeFiles/test_curve_client.dir/tests/test_curve_client.c.o.d"
  "CMakeFiles/test_curve_client.dir/tests/testutil.c.o"
  "CMakeFiles/test_curve_client.dir/tests/testutil.c.o.d"
  "test_curve_client"
  "test_curve_client.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_curve_client.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
