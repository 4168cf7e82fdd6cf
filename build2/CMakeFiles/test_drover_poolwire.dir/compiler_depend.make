# Empty compiler generated dependencies file for test_drover_poolwire.
# This may be replaced when dependencies are built.
