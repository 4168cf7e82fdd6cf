# Empty compiler generated dependencies file for test_drover_assign.
# This may be replaced when dependencies are built.
