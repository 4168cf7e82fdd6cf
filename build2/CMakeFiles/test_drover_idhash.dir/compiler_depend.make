# Empty compiler generated dependencies file for test_drover_idhash.
# This may be replaced when dependencies are built.
