# Empty compiler generated dependencies file for test_cluster.
# This may be replaced when dependencies are built.
