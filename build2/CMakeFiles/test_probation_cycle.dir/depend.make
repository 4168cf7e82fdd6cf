# Empty dependencies file for test_probation_cycle.
# This may be replaced when dependencies are built.
