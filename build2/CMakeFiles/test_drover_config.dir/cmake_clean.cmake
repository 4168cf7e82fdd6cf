file(REMOVE_RECURSE
  "CMakeFiles/test_drover_config.dir/tests/test_drover_config.c.o"
  "CMakeFiles/test_drover_config.dir/tests/test_drover_config.c.o.d"
  "CMakeFiles/test_drover_config.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_config.dir/tests/testutil.c.o.d"
  "test_drover_config"
  "test_drover_config.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_config.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
