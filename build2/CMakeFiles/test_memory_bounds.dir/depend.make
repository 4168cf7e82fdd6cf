# Empty dependencies file for test_memory_bounds.
# This may be replaced when dependencies are built.
