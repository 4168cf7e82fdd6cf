# Empty dependencies file for test_curve_broker.
# This may be replaced when dependencies are built.
