# Empty compiler generated dependencies file for test_security_flood.
# This may be replaced when dependencies are built.
