# Empty dependencies file for test_drover_routes.
# This may be replaced when dependencies are built.
