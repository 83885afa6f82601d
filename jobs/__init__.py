"""Where batches of independent jobs run: in-process, local processes, or Ray tasks."""
