# Empty dependencies file for test_drover_tasktimes.
# This may be replaced when dependencies are built.
