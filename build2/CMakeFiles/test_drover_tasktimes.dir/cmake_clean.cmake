file(REMOVE_RECURSE
  "CMakeFiles/test_drover_tasktimes.dir/tests/test_drover_tasktimes.c.o"
  "CMakeFiles/test_drover_tasktimes.dir/tests/test_drover_tasktimes.c.o.d"
  "CMakeFiles/test_drover_tasktimes.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_tasktimes.dir/tests/testutil.c.o.d"
  "test_drover_tasktimes"
  "test_drover_tasktimes.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_tasktimes.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
