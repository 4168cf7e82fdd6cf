# Empty compiler generated dependencies file for test_submit_spawn_failed.
# This may be replaced when dependencies are built.
