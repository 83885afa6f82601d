"""Palais Royal for researchers, in the ecosystems they already use (docs/research.md).

`research.pettingzoo_env` is the game as a PettingZoo AEC environment; it needs the optional
extra: pip install 'palais-engine[research]'. Importing this package alone needs nothing more.
"""
