file(REMOVE_RECURSE
  "CMakeFiles/test_drover_poolwire.dir/tests/test_drover_poolwire.c.o"
  "CMakeFiles/test_drover_poolwire.dir/tests/test_drover_poolwire.c.o.d"
  "CMakeFiles/test_drover_poolwire.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_poolwire.dir/tests/testutil.c.o.d"
  "test_drover_poolwire"
  "test_drover_poolwire.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_poolwire.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
