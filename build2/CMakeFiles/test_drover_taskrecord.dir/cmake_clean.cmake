file(REMOVE_RECURSE
  "CMakeFiles/test_drover_taskrecord.dir/tests/test_drover_taskrecord.c.o"
  "CMakeFiles/test_drover_taskrecord.dir/tests/test_drover_taskrecord.c.o.d"
  "CMakeFiles/test_drover_taskrecord.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_taskrecord.dir/tests/testutil.c.o.d"
  "test_drover_taskrecord"
  "test_drover_taskrecord.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_taskrecord.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
