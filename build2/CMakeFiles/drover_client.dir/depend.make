# Empty dependencies file for drover_client.
# This may be replaced when dependencies are built.
