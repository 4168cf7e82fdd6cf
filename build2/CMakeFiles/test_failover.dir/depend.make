# Empty dependencies file for test_failover.
# This may be replaced when dependencies are built.
