# Empty compiler generated dependencies file for test_drover_probationset.
# This may be replaced when dependencies are built.
