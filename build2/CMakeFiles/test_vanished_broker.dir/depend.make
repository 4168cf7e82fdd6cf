# Empty dependencies file for test_vanished_broker.
# This may be replaced when dependencies are built.
