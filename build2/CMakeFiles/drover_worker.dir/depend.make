# Empty dependencies file for drover_worker.
# This may be replaced when dependencies are built.
