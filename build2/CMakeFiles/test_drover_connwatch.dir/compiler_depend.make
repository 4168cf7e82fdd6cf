# Empty compiler generated dependencies file for test_drover_connwatch.
# This may be replaced when dependencies are built.
