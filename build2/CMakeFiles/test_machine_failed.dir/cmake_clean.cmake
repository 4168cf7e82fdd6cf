file(REMOVE_RECURSE
  "CMakeFiles/test_machine_failed.dir/tests/test_machine_failed.c.o"
  "CMakeFiles/test_machine_failed.dir/tests/test_machine_failed.c.o.d"
  "CMakeFiles/test_machine_failed.dir/tests/testutil.c.o"
  "CMakeFiles/test_machine_failed.dir/tests/testutil.c.o.d"
  "test_machine_failed"
  "test_machine_failed.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_machine_failed.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
