# Empty compiler generated dependencies file for test_curve_client.
# This may be replaced when dependencies are built.
