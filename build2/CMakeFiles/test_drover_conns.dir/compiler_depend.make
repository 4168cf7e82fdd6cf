# Empty compiler generated dependencies file for test_drover_conns.
# This may be replaced when dependencies are built.
