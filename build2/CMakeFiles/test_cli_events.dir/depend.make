# Empty dependencies file for test_cli_events.
# This may be replaced when dependencies are built.
