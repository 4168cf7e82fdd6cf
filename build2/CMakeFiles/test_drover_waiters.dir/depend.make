# Empty dependencies file for test_drover_waiters.
# This may be replaced when dependencies are built.
