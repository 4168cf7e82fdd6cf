file(REMOVE_RECURSE
  "CMakeFiles/test_drover_ring.dir/tests/test_drover_ring.c.o"
  "CMakeFiles/test_drover_ring.dir/tests/test_drover_ring.c.o.d"
  "CMakeFiles/test_drover_ring.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_ring.dir/tests/testutil.c.o.d"
  "test_drover_ring"
  "test_drover_ring.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_ring.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
