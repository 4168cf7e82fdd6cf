file(REMOVE_RECURSE
  "CMakeFiles/test_drover_outbox.dir/tests/test_drover_outbox.c.o"
  "CMakeFiles/test_drover_outbox.dir/tests/test_drover_outbox.c.o.d"
  "CMakeFiles/test_drover_outbox.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_outbox.dir/tests/testutil.c.o.d"
  "test_drover_outbox"
  "test_drover_outbox.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_outbox.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
