"""The rules of Palais Royal: state, actions, chance, hidden information, scoring, component data."""
