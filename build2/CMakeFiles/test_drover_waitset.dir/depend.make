# Empty dependencies file for test_drover_waitset.
# This may be replaced when dependencies are built.
