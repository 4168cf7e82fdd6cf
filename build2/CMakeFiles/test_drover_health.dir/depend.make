# Empty dependencies file for test_drover_health.
# This may be replaced when dependencies are built.
