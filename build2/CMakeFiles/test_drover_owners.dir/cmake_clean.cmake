file(REMOVE_RECURSE
  "CMakeFiles/test_drover_owners.dir/tests/test_drover_owners.c.o"
  "CMakeFiles/test_drover_owners.dir/tests/test_drover_owners.c.o.d"
  "CMakeFiles/test_drover_owners.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_owners.dir/tests/testutil.c.o.d"
  "test_drover_owners"
  "test_drover_owners.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_owners.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
