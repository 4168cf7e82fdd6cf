file(REMOVE_RECURSE
  "CMakeFiles/test_drover_waiters.dir/tests/test_drover_waiters.c.o"
  "CMakeFiles/test_drover_waiters.dir/tests/test_drover_waiters.c.o.d"
  "CMakeFiles/test_drover_waiters.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_waiters.dir/tests/testutil.c.o.d"
  "test_drover_waiters"
  "test_drover_waiters.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_waiters.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
