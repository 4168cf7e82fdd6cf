# Empty dependencies file for test_pool_local.
# This may be replaced when dependencies are built.
