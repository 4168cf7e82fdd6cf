# Empty compiler generated dependencies file for test_security.
# This may be replaced when dependencies are built.
