# Empty dependencies file for test_drover_gone.
# This may be replaced when dependencies are built.
