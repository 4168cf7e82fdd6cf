file(REMOVE_RECURSE
  "CMakeFiles/test_drover_demands.dir/tests/test_drover_demands.c.o"
  "CMakeFiles/test_drover_demands.dir/tests/test_drover_demands.c.o.d"
  "CMakeFiles/test_drover_demands.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_demands.dir/tests/testutil.c.o.d"
  "test_drover_demands"
  "test_drover_demands.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_demands.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
