# Empty dependencies file for test_drover_schedleases.
# This may be replaced when dependencies are built.
