file(REMOVE_RECURSE
  "CMakeFiles/test_cluster.dir/tests/test_cluster.c.o"
  "CMakeFiles/test_cluster.dir/tests/test_cluster.c.o.d"
  "CMakeFiles/test_cluster.dir/tests/testutil.c.o"
  "CMakeFiles/test_cluster.dir/tests/testutil.c.o.d"
  "test_cluster"
  "test_cluster.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_cluster.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
