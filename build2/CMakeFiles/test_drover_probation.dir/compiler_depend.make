# Empty compiler generated dependencies file for test_drover_probation.
# This may be replaced when dependencies are built.
