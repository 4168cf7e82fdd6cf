file(REMOVE_RECURSE
  "CMakeFiles/test_drover_eventpack.dir/tests/test_drover_eventpack.c.o"
  "CMakeFiles/test_drover_eventpack.dir/tests/test_drover_eventpack.c.o.d"
  "CMakeFiles/test_drover_eventpack.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_eventpack.dir/tests/testutil.c.o.d"
  "test_drover_eventpack"
  "test_drover_eventpack.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_eventpack.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
