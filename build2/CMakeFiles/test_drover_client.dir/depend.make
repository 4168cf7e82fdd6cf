# Empty dependencies file for test_drover_client.
# This may be replaced when dependencies are built.
