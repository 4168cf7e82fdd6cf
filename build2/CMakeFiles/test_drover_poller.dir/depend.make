# Empty dependencies file for test_drover_poller.
# This may be replaced when dependencies are built.
