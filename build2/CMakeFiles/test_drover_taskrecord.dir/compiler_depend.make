# Empty compiler generated dependencies file for test_drover_taskrecord.
# This may be replaced when dependencies are built.
