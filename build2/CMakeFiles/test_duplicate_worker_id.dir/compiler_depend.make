# Empty compiler generated dependencies file for test_duplicate_worker_id.
# This may be replaced when dependencies are built.
