# Empty compiler generated dependencies file for test_drover_tasktable.
# This may be replaced when dependencies are built.
