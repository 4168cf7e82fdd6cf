# Empty dependencies file for drover_protocol.
# This may be replaced when dependencies are built.
