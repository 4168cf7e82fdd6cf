# Empty compiler generated dependencies file for test_drover_log.
# This may be replaced when dependencies are built.
