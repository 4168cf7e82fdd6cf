file(REMOVE_RECURSE
  "CMakeFiles/test_drover_taskshow.dir/tests/test_drover_taskshow.c.o"
  "CMakeFiles/test_drover_taskshow.dir/tests/test_drover_taskshow.c.o.d"
  "CMakeFiles/test_drover_taskshow.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_taskshow.dir/tests/testutil.c.o.d"
  "test_drover_taskshow"
  "test_drover_taskshow.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_taskshow.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
