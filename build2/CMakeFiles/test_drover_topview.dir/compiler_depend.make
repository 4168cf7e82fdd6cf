# Empty compiler generated dependencies file for test_drover_topview.
# This may be replaced when dependencies are built.
