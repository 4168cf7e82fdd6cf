# Empty dependencies file for test_drover_metricset.
# This may be replaced when dependencies are built.
