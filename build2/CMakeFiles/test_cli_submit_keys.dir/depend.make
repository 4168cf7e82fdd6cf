# Empty dependencies file for test_cli_submit_keys.
# This may be replaced when dependencies are built.
