file(REMOVE_RECURSE
  "CMakeFiles/test_drover_topview.dir/tests/test_drover_topview.c.o"
  "CMakeFiles/test_drover_topview.dir/tests/test_drover_topview.c.o.d"
  "CMakeFiles/test_drover_topview.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_topview.dir/tests/testutil.c.o.d"
  "test_drover_topview"
  "test_drover_topview.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_topview.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
