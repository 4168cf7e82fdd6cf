# Empty dependencies file for test_drover_pool.
# This may be replaced when dependencies are built.
