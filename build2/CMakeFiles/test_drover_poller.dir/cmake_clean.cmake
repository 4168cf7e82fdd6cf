file(REMOVE_RECURSE
  "CMakeFiles/test_drover_poller.dir/tests/test_drover_poller.c.o"
  "CMakeFiles/test_drover_poller.dir/tests/test_drover_poller.c.o.d"
  "CMakeFiles/test_drover_poller.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_poller.dir/tests/testutil.c.o.d"
  "test_drover_poller"
  "test_drover_poller.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_poller.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
