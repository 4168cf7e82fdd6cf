# Empty dependencies file for test_drover_backend_bench.
# This may be replaced when dependencies are built.
