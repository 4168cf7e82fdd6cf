file(REMOVE_RECURSE
  "CMakeFiles/test_worker_no_broker.dir/tests/test_worker_no_broker.c.o"
  "CMakeFiles/test_worker_no_broker.dir/tests/test_worker_no_broker.c.o.d"
  "CMakeFiles/test_worker_no_broker.dir/tests/testutil.c.o"
  "CMakeFiles/test_worker_no_broker.dir/tests/testutil.c.o.d"
  "test_worker_no_broker"
  "test_worker_no_broker.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_worker_no_broker.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
