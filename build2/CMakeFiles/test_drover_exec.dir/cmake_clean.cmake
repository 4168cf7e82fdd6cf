file(REMOVE_RECURSE
  "CMakeFiles/test_drover_exec.dir/tests/test_drover_exec.c.o"
  "CMakeFiles/test_drover_exec.dir/tests/test_drover_exec.c.o.d"
  "CMakeFiles/test_drover_exec.dir/tests/testcodec.c.o"
  "CMakeFiles/test_drover_exec.dir/tests/testcodec.c.o.d"
  "CMakeFiles/test_drover_exec.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_exec.dir/tests/testutil.c.o.d"
  "test_drover_exec"
  "test_drover_exec.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_exec.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
