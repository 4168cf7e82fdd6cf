# Empty dependencies file for test_drover_eventpack.
# This may be replaced when dependencies are built.
