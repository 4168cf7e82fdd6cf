file(REMOVE_RECURSE
  "CMakeFiles/test_drover_gone.dir/tests/test_drover_gone.c.o"
  "CMakeFiles/test_drover_gone.dir/tests/test_drover_gone.c.o.d"
  "CMakeFiles/test_drover_gone.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_gone.dir/tests/testutil.c.o.d"
  "test_drover_gone"
  "test_drover_gone.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_gone.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
