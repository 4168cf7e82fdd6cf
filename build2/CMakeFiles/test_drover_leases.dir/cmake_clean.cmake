file(REMOVE_RECURSE
  "CMakeFiles/test_drover_leases.dir/tests/test_drover_leases.c.o"
  "CMakeFiles/test_drover_leases.dir/tests/test_drover_leases.c.o.d"
  "CMakeFiles/test_drover_leases.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_leases.dir/tests/testutil.c.o.d"
  "test_drover_leases"
  "test_drover_leases.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_leases.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
