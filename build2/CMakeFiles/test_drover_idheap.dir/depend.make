# Empty dependencies file for test_drover_idheap.
# This may be replaced when dependencies are built.
