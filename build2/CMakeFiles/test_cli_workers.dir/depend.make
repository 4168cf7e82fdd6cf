# Empty dependencies file for test_cli_workers.
# This may be replaced when dependencies are built.
