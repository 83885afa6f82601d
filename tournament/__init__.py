"""The tournament runner: arbiter, scheduling, ratings, SPRT and game records."""
