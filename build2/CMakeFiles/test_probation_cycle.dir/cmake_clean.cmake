file(REMOVE_RECURSE
  "CMakeFiles/test_probation_cycle.dir/tests/test_probation_cycle.c.o"
  "CMakeFiles/test_probation_cycle.dir/tests/test_probation_cycle.c.o.d"
  "CMakeFiles/test_probation_cycle.dir/tests/testutil.c.o"
  "CMakeFiles/test_probation_cycle.dir/tests/testutil.c.o.d"
  "test_probation_cycle"
  "test_probation_cycle.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_probation_cycle.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
