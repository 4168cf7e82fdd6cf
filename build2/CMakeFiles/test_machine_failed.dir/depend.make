# Empty dependencies file for test_machine_failed.
# This may be replaced when dependencies are built.
