# Empty compiler generated dependencies file for test_drover_actor.
# This may be replaced when dependencies are built.
