file(REMOVE_RECURSE
  "CMakeFiles/test_drover_sched.dir/tests/test_drover_sched.c.o"
  "CMakeFiles/test_drover_sched.dir/tests/test_drover_sched.c.o.d"
  "CMakeFiles/test_drover_sched.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_sched.dir/tests/testutil.c.o.d"
  "test_drover_sched"
  "test_drover_sched.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_sched.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
