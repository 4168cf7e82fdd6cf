# Empty dependencies file for test_task_env.
# This may be replaced when dependencies are built.
