# Empty compiler generated dependencies file for test_drover_exec.
# This may be replaced when dependencies are built.
