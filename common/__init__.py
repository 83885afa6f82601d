"""The support floor: what every other package shares and that is not the rules."""
