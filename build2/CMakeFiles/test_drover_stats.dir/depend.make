# Empty dependencies file for test_drover_stats.
# This may be replaced when dependencies are built.
