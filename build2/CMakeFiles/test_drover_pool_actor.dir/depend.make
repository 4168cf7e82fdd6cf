# Empty dependencies file for test_drover_pool_actor.
# This may be replaced when dependencies are built.
