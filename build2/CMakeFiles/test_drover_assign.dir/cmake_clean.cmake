file(REMOVE_RECURSE
  "CMakeFiles/test_drover_assign.dir/tests/test_drover_assign.c.o"
  "CMakeFiles/test_drover_assign.dir/tests/test_drover_assign.c.o.d"
  "CMakeFiles/test_drover_assign.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_assign.dir/tests/testutil.c.o.d"
  "test_drover_assign"
  "test_drover_assign.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_assign.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
