file(REMOVE_RECURSE
  "CMakeFiles/test_agent_killed.dir/tests/test_agent_killed.c.o"
  "CMakeFiles/test_agent_killed.dir/tests/test_agent_killed.c.o.d"
  "CMakeFiles/test_agent_killed.dir/tests/testutil.c.o"
  "CMakeFiles/test_agent_killed.dir/tests/testutil.c.o.d"
  "test_agent_killed"
  "test_agent_killed.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_agent_killed.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
