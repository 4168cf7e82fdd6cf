# Empty compiler generated dependencies file for zmq_forwarder.
# This may be replaced when dependencies are built.
