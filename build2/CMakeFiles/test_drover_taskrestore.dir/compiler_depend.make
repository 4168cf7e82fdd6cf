# Empty compiler generated dependencies file for test_drover_taskrestore.
# This may be replaced when dependencies are built.
