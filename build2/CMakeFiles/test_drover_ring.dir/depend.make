# Empty dependencies file for test_drover_ring.
# This may be replaced when dependencies are built.
