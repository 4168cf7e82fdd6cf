file(REMOVE_RECURSE
  "CMakeFiles/test_fd_limit.dir/tests/test_fd_limit.c.o"
  "CMakeFiles/test_fd_limit.dir/tests/test_fd_limit.c.o.d"
  "CMakeFiles/test_fd_limit.dir/tests/testutil.c.o"
  "CMakeFiles/test_fd_limit.dir/tests/testutil.c.o.d"
  "test_fd_limit"
  "test_fd_limit.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_fd_limit.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
