# Empty dependencies file for drover.
# This may be replaced when dependencies are built.
