# Empty compiler generated dependencies file for test_drover_taskenv.
# This may be replaced when dependencies are built.
