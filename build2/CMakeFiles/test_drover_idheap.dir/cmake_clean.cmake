file(REMOVE_RECURSE
  "CMakeFiles/test_drover_idheap.dir/tests/test_drover_idheap.c.o"
  "CMakeFiles/test_drover_idheap.dir/tests/test_drover_idheap.c.o.d"
  "CMakeFiles/test_drover_idheap.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_idheap.dir/tests/testutil.c.o.d"
  "test_drover_idheap"
  "test_drover_idheap.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_idheap.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
