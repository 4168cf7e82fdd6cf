# Empty compiler generated dependencies file for test_drover_runner.
# This may be replaced when dependencies are built.
