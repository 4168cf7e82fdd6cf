# Empty compiler generated dependencies file for test_worker_no_broker.
# This may be replaced when dependencies are built.
