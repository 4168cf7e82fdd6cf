# Empty dependencies file for test_drover_msg.
# This may be replaced when dependencies are built.
