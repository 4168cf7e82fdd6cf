file(REMOVE_RECURSE
  "CMakeFiles/test_result_fencing.dir/tests/test_result_fencing.c.o"
  "CMakeFiles/test_result_fencing.dir/tests/test_result_fencing.c.o.d"
  "CMakeFiles/test_result_fencing.dir/tests/testutil.c.o"
  "CMakeFiles/test_result_fencing.dir/tests/testutil.c.o.d"
  "test_result_fencing"
  "test_result_fencing.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_result_fencing.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
