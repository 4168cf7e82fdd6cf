# Empty compiler generated dependencies file for test_pool_command.
# This may be replaced when dependencies are built.
