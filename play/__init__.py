"""Play for people: the terminal game, hints and game analysis (the `palais` command)."""
