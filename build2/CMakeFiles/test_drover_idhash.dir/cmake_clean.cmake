file(REMOVE_RECURSE
  "CMakeFiles/test_drover_idhash.dir/tests/test_drover_idhash.c.o"
  "CMakeFiles/test_drover_idhash.dir/tests/test_drover_idhash.c.o.d"
  "CMakeFiles/test_drover_idhash.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_idhash.dir/tests/testutil.c.o.d"
  "test_drover_idhash"
  "test_drover_idhash.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_idhash.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
