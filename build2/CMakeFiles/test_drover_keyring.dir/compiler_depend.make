# Empty compiler generated dependencies file for test_drover_keyring.
# This may be replaced when dependencies are built.
