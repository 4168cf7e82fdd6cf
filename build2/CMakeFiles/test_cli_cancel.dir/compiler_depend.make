# Empty compiler generated dependencies file for test_cli_cancel.
# This may be replaced when dependencies are built.
