# Empty compiler generated dependencies file for test_drover_outbox.
# This may be replaced when dependencies are built.
