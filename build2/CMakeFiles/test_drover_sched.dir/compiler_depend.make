# Empty compiler generated dependencies file for test_drover_sched.
# This may be replaced when dependencies are built.
