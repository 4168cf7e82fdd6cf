file(REMOVE_RECURSE
  "CMakeFiles/test_drover_liveness.dir/tests/test_drover_liveness.c.o"
  "CMakeFiles/test_drover_liveness.dir/tests/test_drover_liveness.c.o.d"
  "CMakeFiles/test_drover_liveness.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_liveness.dir/tests/testutil.c.o.d"
  "test_drover_liveness"
  "test_drover_liveness.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_liveness.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
