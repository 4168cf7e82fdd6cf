# Empty dependencies file for test_drover_backend.
# This may be replaced when dependencies are built.
