# Empty dependencies file for test_drover_liveness.
# This may be replaced when dependencies are built.
