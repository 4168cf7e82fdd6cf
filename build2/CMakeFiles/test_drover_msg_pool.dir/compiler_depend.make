# Empty compiler generated dependencies file for test_drover_msg_pool.
# This may be replaced when dependencies are built.
