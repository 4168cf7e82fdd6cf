# Empty compiler generated dependencies file for test_drover_capture.
# This may be replaced when dependencies are built.
