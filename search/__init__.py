"""Search over Palais Royal positions: MCTS, ISMCTS, baselines and evaluators."""
