file(REMOVE_RECURSE
  "CMakeFiles/test_peer_burst.dir/tests/test_peer_burst.c.o"
  "CMakeFiles/test_peer_burst.dir/tests/test_peer_burst.c.o.d"
  "CMakeFiles/test_peer_burst.dir/tests/testutil.c.o"
  "CMakeFiles/test_peer_burst.dir/tests/testutil.c.o.d"
  "test_peer_burst"
  "test_peer_burst.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_peer_burst.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
