file(REMOVE_RECURSE
  "CMakeFiles/test_drover_backend.dir/tests/test_drover_backend.c.o"
  "CMakeFiles/test_drover_backend.dir/tests/test_drover_backend.c.o.d"
  "CMakeFiles/test_drover_backend.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_backend.dir/tests/testutil.c.o.d"
  "test_drover_backend"
  "test_drover_backend.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_backend.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
