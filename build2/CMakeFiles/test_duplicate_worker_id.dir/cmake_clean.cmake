file(REMOVE_RECURSE
  "CMakeFiles/test_duplicate_worker_id.dir/tests/test_duplicate_worker_id.c.o"
  "CMakeFiles/test_duplicate_worker_id.dir/tests/test_duplicate_worker_id.c.o.d"
  "CMakeFiles/test_duplicate_worker_id.dir/tests/testutil.c.o"
  "CMakeFiles/test_duplicate_worker_id.dir/tests/testutil.c.o.d"
  "test_duplicate_worker_id"
  "test_duplicate_worker_id.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_duplicate_worker_id.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
