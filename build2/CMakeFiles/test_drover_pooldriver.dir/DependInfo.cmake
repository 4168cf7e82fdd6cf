
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/wt/actor/tests/test_drover_pooldriver.c" "CMakeFiles/test_drover_pooldriver.dir/tests/test_drover_pooldriver.c.o" "gcc" "CMakeFiles/test_drover_pooldriver.dir/tests/test_drover_pooldriver.c.o.d"
  "/work/wt/actor/tests/testutil.c" "CMakeFiles/test_drover_pooldriver.dir/tests/testutil.c.o" "gcc" "CMakeFiles/test_drover_pooldriver.dir/tests/testutil.c.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/wt/actor/build2/CMakeFiles/drover_broker.dir/DependInfo.cmake"
  "/work/wt/actor/build2/CMakeFiles/drover_worker.dir/DependInfo.cmake"
  "/work/wt/actor/build2/CMakeFiles/drover_client.dir/DependInfo.cmake"
  "/work/wt/actor/build2/CMakeFiles/drover_common.dir/DependInfo.cmake"
  "/work/wt/actor/build2/CMakeFiles/drover_protocol.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
