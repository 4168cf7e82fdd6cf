# Empty dependencies file for drover_broker.
# This may be replaced when dependencies are built.
