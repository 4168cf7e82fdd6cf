file(REMOVE_RECURSE
  "CMakeFiles/test_drover_pooldriver.dir/tests/test_drover_pooldriver.c.o"
  "CMakeFiles/test_drover_pooldriver.dir/tests/test_drover_pooldriver.c.o.d"
  "CMakeFiles/test_drover_pooldriver.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_pooldriver.dir/tests/testutil.c.o.d"
  "test_drover_pooldriver"
  "test_drover_pooldriver.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_pooldriver.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
