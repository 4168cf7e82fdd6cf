# Empty dependencies file for test_peer_burst.
# This may be replaced when dependencies are built.
