# Empty dependencies file for test_cli_explain.
# This may be replaced when dependencies are built.
