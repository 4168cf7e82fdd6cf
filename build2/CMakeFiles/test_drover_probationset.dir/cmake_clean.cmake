file(REMOVE_RECURSE
  "CMakeFiles/test_drover_probationset.dir/tests/test_drover_probationset.c.o"
  "CMakeFiles/test_drover_probationset.dir/tests/test_drover_probationset.c.o.d"
  "CMakeFiles/test_drover_probationset.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_probationset.dir/tests/testutil.c.o.d"
  "test_drover_probationset"
  "test_drover_probationset.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_probationset.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
