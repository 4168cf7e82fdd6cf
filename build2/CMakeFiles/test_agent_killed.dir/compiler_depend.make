# Empty compiler generated dependencies file for test_agent_killed.
# This may be replaced when dependencies are built.
