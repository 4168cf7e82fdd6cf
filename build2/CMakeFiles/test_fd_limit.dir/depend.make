# Empty dependencies file for test_fd_limit.
# This may be replaced when dependencies are built.
