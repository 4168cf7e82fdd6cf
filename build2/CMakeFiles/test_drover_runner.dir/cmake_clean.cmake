file(REMOVE_RECURSE
  "CMakeFiles/test_drover_runner.dir/tests/test_drover_runner.c.o"
  "CMakeFiles/test_drover_runner.dir/tests/test_drover_runner.c.o.d"
  "CMakeFiles/test_drover_runner.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_runner.dir/tests/testutil.c.o.d"
  "test_drover_runner"
  "test_drover_runner.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_runner.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
