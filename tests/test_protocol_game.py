"""A whole 4-player game between four palais-engine processes, each seeing only its cards.

The arbiter here keeps the true state with the rules core, deals the draws from a seeded
stream, tells each engine the moves as its seat sees them (other seats' draws as `?`),
checks every bestmove token, and writes the game record, which must read back and replay.
"""

import sys

from engine.constants import A_DRAW
from engine.determinize import weighted_pick
from engine.notation import action_to_token, token_to_action
from engine.record import read_record, record_from_actions, replay, write_record
from engine.rng import Rng
from engine.state import State
from protocol.client import EngineClient

ENGINE = [sys.executable, "-m", "protocol.cli"]


def seen_by(seat, history):
    return [action_to_token(a) if drawer in (None, seat) else "?" for a, drawer in history]


def test_four_engine_processes_play_a_whole_game_with_a_valid_record():
    players, seed = 4, 31
    state = State.new_game(players, seed=seed)
    chance = Rng(seed)
    history = []                           # (action, the seat that drew it or None)
    clients = [EngineClient(ENGINE, read_timeout=60).start() for _ in range(players)]
    try:
        for q, client in enumerate(clients):
            client.handshake()
            client.set_option("Seed", q + 1)
        while not state.is_terminal():
            if state.is_chance():
                action = A_DRAW + weighted_pick(state.deck_counts(), chance)
                history.append((action, state.to_move))
                state.apply(action)
                continue
            seat = state.to_move
            client = clients[seat]
            client.position_start(players, seed, moves=seen_by(seat, history))
            answer = client.go("iterations 300", timeout=120)
            assert answer.bestmove and not answer.errors, answer.errors
            for token in answer.bestmove:
                if state.is_terminal() or state.is_chance() or state.to_move != seat:
                    break
                action = token_to_action(token)
                assert action in state.legal_actions(), f"seat {seat + 1} played illegal {token}"
                history.append((action, None))
                state.apply(action)
            assert state.round <= state.options.round_cap
    finally:
        for client in clients:
            client.close()
    assert state.is_terminal()
    record = record_from_actions(players, [a for a, _ in history], seed=seed)
    text = write_record(record)
    again = read_record(text)
    final = replay(again)
    assert final.snapshot() == state.snapshot()
    assert f'[Scores "{",".join(map(str, state.scores()))}"]' in text
