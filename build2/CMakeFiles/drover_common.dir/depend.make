# Empty dependencies file for drover_common.
# This may be replaced when dependencies are built.
