# Empty compiler generated dependencies file for test_drover_config.
# This may be replaced when dependencies are built.
