file(REMOVE_RECURSE
  "CMakeFiles/test_drover_waitset.dir/tests/test_drover_waitset.c.o"
  "CMakeFiles/test_drover_waitset.dir/tests/test_drover_waitset.c.o.d"
  "CMakeFiles/test_drover_waitset.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_waitset.dir/tests/testutil.c.o.d"
  "test_drover_waitset"
  "test_drover_waitset.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_waitset.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
