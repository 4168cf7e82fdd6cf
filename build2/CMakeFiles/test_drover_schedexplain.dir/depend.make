# Empty dependencies file for test_drover_schedexplain.
# This may be replaced when dependencies are built.
