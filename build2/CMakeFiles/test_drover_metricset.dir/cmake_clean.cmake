file(REMOVE_RECURSE
  "CMakeFiles/test_drover_metricset.dir/tests/test_drover_metricset.c.o"
  "CMakeFiles/test_drover_metricset.dir/tests/test_drover_metricset.c.o.d"
  "CMakeFiles/test_drover_metricset.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_metricset.dir/tests/testutil.c.o.d"
  "test_drover_metricset"
  "test_drover_metricset.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_metricset.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
