file(REMOVE_RECURSE
  "CMakeFiles/test_drover_taskactions.dir/tests/test_drover_taskactions.c.o"
  "CMakeFiles/test_drover_taskactions.dir/tests/test_drover_taskactions.c.o.d"
  "CMakeFiles/test_drover_taskactions.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_taskactions.dir/tests/testutil.c.o.d"
  "test_drover_taskactions"
  "test_drover_taskactions.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_taskactions.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
