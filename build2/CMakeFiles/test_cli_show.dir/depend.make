# Empty dependencies file for test_cli_show.
# This may be replaced when dependencies are built.
