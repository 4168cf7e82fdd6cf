file(REMOVE_RECURSE
  "CMakeFiles/test_drover_capture.dir/tests/test_drover_capture.c.o"
  "CMakeFiles/test_drover_capture.dir/tests/test_drover_capture.c.o.d"
  "CMakeFiles/test_drover_capture.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_capture.dir/tests/testutil.c.o.d"
  "test_drover_capture"
  "test_drover_capture.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_capture.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
