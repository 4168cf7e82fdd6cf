# Empty dependencies file for test_result_fencing.
# This may be replaced when dependencies are built.
