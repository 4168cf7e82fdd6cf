file(REMOVE_RECURSE
  "CMakeFiles/test_drover_schedq.dir/tests/test_drover_schedq.c.o"
  "CMakeFiles/test_drover_schedq.dir/tests/test_drover_schedq.c.o.d"
  "CMakeFiles/test_drover_schedq.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_schedq.dir/tests/testutil.c.o.d"
  "test_drover_schedq"
  "test_drover_schedq.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_schedq.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
