# Empty compiler generated dependencies file for test_drover_taskactions.
# This may be replaced when dependencies are built.
