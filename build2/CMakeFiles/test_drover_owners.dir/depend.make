# Empty dependencies file for test_drover_owners.
# This may be replaced when dependencies are built.
