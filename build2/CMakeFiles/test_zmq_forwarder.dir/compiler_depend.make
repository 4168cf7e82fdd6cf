# Empty compiler generated dependencies file for test_zmq_forwarder.
# This may be replaced when dependencies are built.
