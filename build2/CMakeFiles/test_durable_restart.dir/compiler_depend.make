# Empty compiler generated dependencies file for test_durable_restart.
# This may be replaced when dependencies are built.
