# Empty dependencies file for test_cli_top.
# This may be replaced when dependencies are built.
