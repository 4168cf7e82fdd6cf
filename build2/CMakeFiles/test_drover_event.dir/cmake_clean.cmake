file(REMOVE_RECURSE
  "CMakeFiles/test_drover_event.dir/tests/test_drover_event.c.o"
  "CMakeFiles/test_drover_event.dir/tests/test_drover_event.c.o.d"
  "CMakeFiles/test_drover_event.dir/tests/testcodec.c.o"
  "CMakeFiles/test_drover_event.dir/tests/testcodec.c.o.d"
  "CMakeFiles/test_drover_event.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_event.dir/tests/testutil.c.o.d"
  "test_drover_event"
  "test_drover_event.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_event.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
