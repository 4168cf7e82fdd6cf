# Empty dependencies file for test_cli_keygen.
# This may be replaced when dependencies are built.
