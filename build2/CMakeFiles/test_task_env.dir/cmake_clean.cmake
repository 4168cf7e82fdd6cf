file(REMOVE_RECURSE
  "CMakeFiles/test_task_env.dir/tests/test_task_env.c.o"
  "CMakeFiles/test_task_env.dir/tests/test_task_env.c.o.d"
  "CMakeFiles/test_task_env.dir/tests/testutil.c.o"
  "CMakeFiles/test_task_env.dir/tests/testutil.c.o.d"
  "test_task_env"
  "test_task_env.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_task_env.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
