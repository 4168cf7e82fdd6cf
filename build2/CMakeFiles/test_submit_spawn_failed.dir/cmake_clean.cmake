file(REMOVE_RECURSE
  "CMakeFiles/test_submit_spawn_failed.dir/tests/test_submit_spawn_failed.c.o"
  "CMakeFiles/test_submit_spawn_failed.dir/tests/test_submit_spawn_failed.c.o.d"
  "CMakeFiles/test_submit_spawn_failed.dir/tests/testutil.c.o"
  "CMakeFiles/test_submit_spawn_failed.dir/tests/testutil.c.o.d"
  "test_submit_spawn_failed"
  "test_submit_spawn_failed.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_submit_spawn_failed.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
