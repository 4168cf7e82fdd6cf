# Empty dependencies file for test_drover_schedq.
# This may be replaced when dependencies are built.
