file(REMOVE_RECURSE
  "CMakeFiles/test_drover_schedexplain.dir/tests/test_drover_schedexplain.c.o"
  "CMakeFiles/test_drover_schedexplain.dir/tests/test_drover_schedexplain.c.o.d"
  "CMakeFiles/test_drover_schedexplain.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_schedexplain.dir/tests/testutil.c.o.d"
  "test_drover_schedexplain"
  "test_drover_schedexplain.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_schedexplain.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
