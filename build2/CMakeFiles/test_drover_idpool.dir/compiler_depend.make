# Empty compiler generated dependencies file for test_drover_idpool.
# This may be replaced when dependencies are built.
