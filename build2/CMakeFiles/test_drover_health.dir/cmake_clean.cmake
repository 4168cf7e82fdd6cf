file(REMOVE_RECURSE
  "CMakeFiles/test_drover_health.dir/tests/test_drover_health.c.o"
  "CMakeFiles/test_drover_health.dir/tests/test_drover_health.c.o.d"
  "CMakeFiles/test_drover_health.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_health.dir/tests/testutil.c.o.d"
  "test_drover_health"
  "test_drover_health.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_health.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
