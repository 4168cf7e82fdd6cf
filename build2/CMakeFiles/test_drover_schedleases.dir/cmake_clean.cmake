file(REMOVE_RECURSE
  "CMakeFiles/test_drover_schedleases.dir/tests/test_drover_schedleases.c.o"
  "CMakeFiles/test_drover_schedleases.dir/tests/test_drover_schedleases.c.o.d"
  "CMakeFiles/test_drover_schedleases.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_schedleases.dir/tests/testutil.c.o.d"
  "test_drover_schedleases"
  "test_drover_schedleases.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_schedleases.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
