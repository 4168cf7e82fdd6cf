# Empty compiler generated dependencies file for test_broker_stall.
# This may be replaced when dependencies are built.
