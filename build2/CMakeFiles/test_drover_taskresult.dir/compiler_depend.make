# Empty compiler generated dependencies file for test_drover_taskresult.
# This may be replaced when dependencies are built.
