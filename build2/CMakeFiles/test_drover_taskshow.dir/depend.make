# Empty dependencies file for test_drover_taskshow.
# This may be replaced when dependencies are built.
