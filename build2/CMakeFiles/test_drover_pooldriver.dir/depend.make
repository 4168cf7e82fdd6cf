# Empty dependencies file for test_drover_pooldriver.
# This may be replaced when dependencies are built.
