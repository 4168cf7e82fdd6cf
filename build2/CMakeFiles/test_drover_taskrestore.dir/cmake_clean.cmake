file(REMOVE_RECURSE
  "CMakeFiles/test_drover_taskrestore.dir/tests/test_drover_taskrestore.c.o"
  "CMakeFiles/test_drover_taskrestore.dir/tests/test_drover_taskrestore.c.o.d"
  "CMakeFiles/test_drover_taskrestore.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_taskrestore.dir/tests/testutil.c.o.d"
  "test_drover_taskrestore"
  "test_drover_taskrestore.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_taskrestore.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
