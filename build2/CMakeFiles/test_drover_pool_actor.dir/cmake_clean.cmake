file(REMOVE_RECURSE
  "CMakeFiles/test_drover_pool_actor.dir/tests/test_drover_pool_actor.c.o"
  "CMakeFiles/test_drover_pool_actor.dir/tests/test_drover_pool_actor.c.o.d"
  "CMakeFiles/test_drover_pool_actor.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_pool_actor.dir/tests/testutil.c.o.d"
  "test_drover_pool_actor"
  "test_drover_pool_actor.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_pool_actor.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
