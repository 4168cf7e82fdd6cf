# Empty dependencies file for test_cli_surprises.
# This may be replaced when dependencies are built.
