file(REMOVE_RECURSE
  "CMakeFiles/test_curve_broker.dir/tests/test_curve_broker.c.o"
  "CMakeFiles/test_curve_broker.dir/tests/test_curve_broker.c.o.d"
  "CMakeFiles/test_curve_broker.dir/tests/testutil.c.o"
  "CMakeFiles/test_curve_broker.dir/tests/testutil.c.o.d"
  "test_curve_broker"
  "test_curve_broker.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_curve_broker.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
