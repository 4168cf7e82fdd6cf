file(REMOVE_RECURSE
  "CMakeFiles/test_drover_routes.dir/tests/test_drover_routes.c.o"
  "CMakeFiles/test_drover_routes.dir/tests/test_drover_routes.c.o.d"
  "CMakeFiles/test_drover_routes.dir/tests/testutil.c.o"
  "CMakeFiles/test_drover_routes.dir/tests/testutil.c.o.d"
  "test_drover_routes"
  "test_drover_routes.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_drover_routes.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
