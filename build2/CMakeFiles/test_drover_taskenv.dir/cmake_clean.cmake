file(REMOVE_RECURSE
  "CMakeFiles/test_drover_taskenv.dir/tests/test_drover_taskenv.c.o"
  "CMakeFiles/test_drover_taskenv.dir/tests/test_drover_taskenv.c.o.d"
  "CMakeFiles/test_drover_taskenv.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_taskenv.dir/tests/testutil.c.o.d"
  "test_drover_taskenv"
  "test_drover_taskenv.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_taskenv.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
