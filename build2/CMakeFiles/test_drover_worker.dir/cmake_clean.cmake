file(REMOVE_RECURSE
  "CMakeFiles/test_drover_worker.dir/tests/test_drover_worker.c.o"
  "CMakeFiles/test_drover_worker.dir/tests/test_drover_worker.c.o.d"
  "CMakeFiles/test_drover_worker.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_worker.dir/tests/testutil.c.o.d"
  "test_drover_worker"
  "test_drover_worker.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_worker.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
