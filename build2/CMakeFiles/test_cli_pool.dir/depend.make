# Empty dependencies file for test_cli_pool.
# This may be replaced when dependencies are built.
