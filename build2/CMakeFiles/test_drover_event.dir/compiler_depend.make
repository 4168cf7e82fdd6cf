# Empty compiler generated dependencies file for test_drover_event.
# This may be replaced when dependencies are built.
