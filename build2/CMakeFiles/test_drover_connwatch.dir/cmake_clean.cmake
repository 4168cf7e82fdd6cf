file(REMOVE_RECURSE
  "CMakeFiles/test_drover_connwatch.dir/tests/test_drover_connwatch.c.o"
  "CMakeFiles/test_drover_connwatch.dir/tests/test_drover_connwatch.c.o.d"
  "CMakeFiles/test_drover_connwatch.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_connwatch.dir/tests/testutil.c.o.d"
  "test_drover_connwatch"
  "test_drover_connwatch.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_connwatch.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
