# Empty compiler generated dependencies file for test_drover_taskworker.
# This may be replaced when dependencies are built.
