file(REMOVE_RECURSE
  "CMakeFiles/test_memory_bounds.dir/tests/test_memory_bounds.c.o"
  "CMakeFiles/test_memory_bounds.dir/tests/test_memory_bounds.c.o.d"
  "CMakeFiles/test_memory_bounds.dir/tests/testutil.c.o"
  "CMakeFiles/test_memory_bounds.dir/tests/testutil.c.o.d"
  "test_memory_bounds"
  "test_memory_bounds.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_memory_bounds.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
