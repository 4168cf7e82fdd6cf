file(REMOVE_RECURSE
  "CMakeFiles/test_drover_taskworker.dir/tests/test_drover_taskworker.c.o"
  "CMakeFiles/test_drover_taskworker.dir/tests/test_drover_taskworker.c.o.d"
  "CMakeFiles/test_drover_taskworker.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_taskworker.dir/tests/testutil.c.o.d"
  "test_drover_taskworker"
  "test_drover_taskworker.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_taskworker.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
