file(REMOVE_RECURSE
  "CMakeFiles/test_drover_keyring.dir/tests/test_drover_keyring.c.o"
  "CMakeFiles/test_drover_keyring.dir/tests/test_drover_keyring.c.o.d"
  "CMakeFiles/test_drover_keyring.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_keyring.dir/tests/testutil.c.o.d"
  "test_drover_keyring"
  "test_drover_keyring.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_keyring.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
