file(REMOVE_RECURSE
  "CMakeFiles/test_drover_probation.dir/tests/test_drover_probation.c.o"
  "CMakeFiles/test_drover_probation.dir/tests/test_drover_probation.c.o.d"
  "CMakeFiles/test_drover_probation.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_probation.dir/tests/testutil.c.o.d"
  "test_drover_probation"
  "test_drover_probation.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_probation.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
