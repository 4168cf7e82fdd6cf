file(REMOVE_RECURSE
  "CMakeFiles/test_drover_conns.dir/tests/test_drover_conns.c.o"
  "CMakeFiles/test_drover_conns.dir/tests/test_drover_conns.c.o.d"
  "CMakeFiles/test_drover_conns.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_conns.dir/tests/testutil.c.o.d"
  "test_drover_conns"
  "test_drover_conns.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_conns.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
