file(REMOVE_RECURSE
  "CMakeFiles/test_drover_stats.dir/tests/test_drover_stats.c.o"
  "CMakeFiles/test_drover_stats.dir/tests/test_drover_stats.c.o.d"
  "CMakeFiles/test_drover_stats.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_stats.dir/tests/testutil.c.o.d"
  "test_drover_stats"
  "test_drover_stats.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_stats.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
