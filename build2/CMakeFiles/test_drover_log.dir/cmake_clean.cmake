file(REMOVE_RECURSE
  "CMakeFiles/test_drover_log.dir/tests/test_drover_log.c.o"
  "CMakeFiles/test_drover_log.dir/tests/test_drover_log.c.o.d"
  "CMakeFiles/test_drover_log.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_log.dir/tests/testutil.c.o.d"
  "test_drover_log"
  "test_drover_log.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_log.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
