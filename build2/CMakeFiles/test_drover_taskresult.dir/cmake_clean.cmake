file(REMOVE_RECURSE
  "CMakeFiles/test_drover_taskresult.dir/tests/test_drover_taskresult.c.o"
  "CMakeFiles/test_drover_taskresult.dir/tests/test_drover_taskresult.c.o.d"
  "CMakeFiles/test_drover_taskresult.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_taskresult.dir/tests/testutil.c.o.d"
  "test_drover_taskresult"
  "test_drover_taskresult.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_taskresult.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
