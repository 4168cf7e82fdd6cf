# Empty compiler generated dependencies file for test_drover_demands.
# This may be replaced when dependencies are built.
