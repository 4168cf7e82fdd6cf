# Empty compiler generated dependencies file for test_drover_leases.
# This may be replaced when dependencies are built.
