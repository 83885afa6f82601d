"""Palais Royal as a PettingZoo AEC environment, so reinforcement-learning code written for
PettingZoo can train and evaluate agents on it without learning our APIs.

Agents are "seat_1" .. "seat_n". Each observes only its seat's view: the observation vector
of engine/features.py and a mask of its legal actions (all zero when it is not its turn).
Actions are the rules core's integer actions (Discrete(175), engine/constants.py). Card draws
are chance events the environment resolves inside step() with the deal's seeded stream, so
an agent never chooses or sees another seat's draws. Rewards come at the end only: each
winner gets 1 / (number of winners), everyone else 0 (RULES.md §7: most VP, then most gold).
docs/research.md has the details and examples.
"""

from __future__ import annotations

import os

import numpy as np

try:
    from gymnasium import spaces
    from pettingzoo import AECEnv
except ImportError as exc:          # the optional extra is missing
    raise ImportError("the PettingZoo environment needs the research extra: "
                      "pip install 'palais-engine[research]'") from exc

from engine.board_text import board_lines
from engine.chance import ChanceStream
from engine.constants import MAX_PLAYERS, MIN_PLAYERS, N_ACTIONS
from engine.errors import PalaisError
from engine.features import FEATURE_SIZE, observation
from engine.rng import Rng
from engine.state import State

__all__ = ["PalaisRoyalEnv", "env", "agent_name"]

DEAL_SEED_LIMIT = 2 ** 31       # later deals of one env are drawn below this


def agent_name(seat: int) -> str:
    """The agent of a 0-based seat: seat 0 is "seat_1"."""
    return f"seat_{seat + 1}"


def env(n_players: int = 2, seed: int | None = None, first_game: bool = False,
        render_mode: str | None = None) -> "PalaisRoyalEnv":
    """A Palais Royal game for PettingZoo; see PalaisRoyalEnv."""
    return PalaisRoyalEnv(n_players, seed, first_game, render_mode)


class PalaisRoyalEnv(AECEnv):
    """One game of Palais Royal at a time, for 2-4 agents.

    seed: the deal of the first reset() (tiles, layout and every card draw, the same deal
    as that seed in the tournament runner and self-play); each later reset() without a seed
    plays a deal drawn from a generator seeded with it. reset(seed=s) starts that sequence
    again from s. seed=None takes a seed from the operating system.
    first_game: the first-game room layout instead of a random one.
    render_mode: None, "ansi" (render() returns the board as text) or "human" (prints it);
    the board shows what an onlooker sees (no hand's cards).
    """

    metadata = {"render_modes": ["ansi", "human"], "name": "palais_royal_v0",
                "is_parallelizable": False}

    def __init__(self, n_players: int = 2, seed: int | None = None, first_game: bool = False,
                 render_mode: str | None = None):
        super().__init__()
        if isinstance(n_players, bool) or not isinstance(n_players, (int, np.integer)) \
                or not MIN_PLAYERS <= n_players <= MAX_PLAYERS:
            raise ValueError(f"n_players: Palais Royal is played by 2, 3 or 4 players, "
                             f"not {n_players!r}")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode: expected None, 'ansi' or 'human', not {render_mode!r}")
        self.n_players = int(n_players)
        self.first_game = bool(first_game)
        self.render_mode = render_mode
        self.possible_agents = [agent_name(seat) for seat in range(self.n_players)]
        self._seat_of = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        # One space object per agent, so each can be seeded on its own (PettingZoo's tests do).
        self._action_spaces = {agent: spaces.Discrete(N_ACTIONS) for agent in self.possible_agents}
        self._observation_spaces = {agent: spaces.Dict({
            "observation": spaces.Box(0.0, np.inf, (FEATURE_SIZE,), np.float32),
            "action_mask": spaces.Box(0, 1, (N_ACTIONS,), np.int8),
        }) for agent in self.possible_agents}
        self._seed_deals(_checked_seed(seed) if seed is not None
                         else int.from_bytes(os.urandom(4), "little"))
        self._state = None
        self.deal_seed = None

    # ---------------------------------------------------------------- spaces
    def observation_space(self, agent):
        return self._observation_spaces[agent]

    def action_space(self, agent):
        return self._action_spaces[agent]

    # ---------------------------------------------------------------- the game
    def _seed_deals(self, seed: int) -> None:
        self._next_deal = seed
        self._deal_rng = Rng(seed)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game (options are accepted for the API and unused)."""
        if seed is not None:
            self._seed_deals(_checked_seed(seed))
        self.deal_seed = self._next_deal
        self._next_deal = self._deal_rng.below(DEAL_SEED_LIMIT)
        self._state = State.new_game(self.n_players, seed=self.deal_seed,
                                     first_game=self.first_game)
        self._chance = ChanceStream.arena(self.deal_seed)
        self.agents = list(self.possible_agents)
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos = {agent: {} for agent in self.agents}
        self.agent_selection = agent_name(self._state.to_move)
        if self.render_mode == "human":
            self.render()

    def step(self, action) -> None:
        """Apply the selected agent's action, then every card draw that follows it."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise PalaisError(f"{agent}: an action is an integer 0..{N_ACTIONS - 1}, not {action!r}")
        action = int(action)
        if action not in self._state.legal_actions():
            raise PalaisError(f"{agent}: action {action} is not legal here (see its action_mask)")
        self._clear_rewards()
        self._cumulative_rewards[agent] = 0.0
        self._state.apply(action)
        while self._state.is_chance():
            self._state.apply(self._chance.draw(self._state))
        if self._state.is_terminal():
            scores = self._state.scores()
            for seat, reward in enumerate(self._state.returns()):
                name = agent_name(seat)
                self.rewards[name] = float(reward)
                self.terminations[name] = True
                self.infos[name] = {"score": scores[seat]}
        else:
            self.agent_selection = agent_name(self._state.to_move)
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent) -> dict:
        """What `agent` may know: its observation vector and its legal actions (a mask, all
        zero when it is not to act)."""
        seat = self._seat_of[agent]
        mask = np.zeros(N_ACTIONS, dtype=np.int8)
        if not self._state.is_terminal() and seat == self._state.to_move:
            mask[self._state.legal_actions()] = 1
        return {"observation": observation(self._state, seat), "action_mask": mask}

    def seat_view(self, agent) -> State:
        """The position as `agent`'s seat sees it (a State, other hands unknown): what a
        search player such as ISMCTS needs to act for that seat."""
        return self._state.view(self._seat_of[agent])

    # ---------------------------------------------------------------- rendering
    def render(self):
        if self.render_mode is None or self._state is None:
            return None
        text = "\n".join(board_lines(self._state.public_view()))
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        self._state = None

    def __str__(self) -> str:
        return "palais_royal_v0"


def _checked_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed: expected a whole number >= 0, not {seed!r}")
    return int(seed)
