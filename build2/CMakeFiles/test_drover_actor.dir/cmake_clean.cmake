file(REMOVE_RECURSE
  "CMakeFiles/test_drover_actor.dir/tests/test_drover_actor.c.o"
  "CMakeFiles/test_drover_actor.dir/tests/test_drover_actor.c.o.d"
  "CMakeFiles/test_drover_actor.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_actor.dir/tests/testutil.c.o.d"
  "test_drover_actor"
  "test_drover_actor.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_actor.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
