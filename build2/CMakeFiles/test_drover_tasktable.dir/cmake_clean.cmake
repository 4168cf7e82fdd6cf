file(REMOVE_RECURSE
  "CMakeFiles/test_drover_tasktable.dir/tests/test_drover_tasktable.c.o"
  "CMakeFiles/test_drover_tasktable.dir/tests/test_drover_tasktable.c.o.d"
  "CMakeFiles/test_drover_tasktable.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_tasktable.dir/tests/testutil.c.o.d"
  "test_drover_tasktable"
  "test_drover_tasktable.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_tasktable.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
