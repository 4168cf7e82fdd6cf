# Empty dependencies file for test_drover_worker.
# This may be replaced when dependencies are built.
