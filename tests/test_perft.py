"""perft: the known counts in tests/data/perft.txt, through both implementations and the CLI."""

from pathlib import Path

import pytest
from click.testing import CliRunner

from engine.cli import main as cli_main
from engine.notation import action_to_token, state_from_position
from engine.perft import perft, perft_divide
from engine.reference import ReferenceState
from engine.state import State

DATA = Path(__file__).parent / "data" / "perft.txt"
TWIN_NODE_LIMIT = 20_000


def load_cases():
    cases = []
    for line in DATA.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        label, position, counts = (part.strip() for part in line.split("|"))
        cases.append(pytest.param(position, [int(c) for c in counts.split()], id=label))
    return cases


CASES = load_cases()


def test_data_file_has_every_kind_of_position():
    assert len(CASES) >= 12


@pytest.mark.parametrize("position,counts", CASES)
def test_cython_perft_matches_the_known_counts(position, counts):
    state = state_from_position(position, impl=State)
    assert [state.perft(d) for d in range(1, len(counts) + 1)] == counts
    assert state.perft(0) == 1


@pytest.mark.parametrize("position,counts", CASES)
def test_reference_twin_agrees_on_small_depths(position, counts):
    state = state_from_position(position, impl=ReferenceState)
    for depth, expected in enumerate(counts, start=1):
        if expected > TWIN_NODE_LIMIT:
            break
        assert perft(state, depth) == expected


@pytest.mark.parametrize("position,counts", CASES[3:8])
def test_divide_sums_to_perft_and_agrees_between_implementations(position, counts):
    fast = state_from_position(position, impl=State)
    slow = state_from_position(position, impl=ReferenceState)
    depth = min(3, len(counts))
    divided = perft_divide(fast, depth)
    assert sum(n for _, n in divided) == counts[depth - 1]
    assert [a for a, _ in divided] == fast.legal_actions()
    assert divided == perft_divide(slow, depth)


def test_perft_of_a_finished_game_is_zero():
    state = State.new_game(2, seed=3)
    from engine.rng import Rng
    state.playout(Rng(3))
    assert state.is_terminal()
    assert state.perft(0) == 1 and state.perft(1) == 0 and state.perft(3) == 0


def test_cli_perft_counts_and_divides():
    runner = CliRunner()
    result = runner.invoke(cli_main, ["perft", "3", "--players", "2", "--seed", "1"])
    assert result.exit_code == 0, result.output
    assert result.output.strip().splitlines()[-1] == "Nodes searched: 729"
    position, counts = CASES[4].values
    result = runner.invoke(cli_main, ["perft", "2", "--position", position, "--divide"])
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    assert lines[-1] == f"Nodes searched: {counts[1]}"
    first = state_from_position(position)
    assert lines[0].startswith(action_to_token(first.legal_actions()[0]) + ": ")


def test_cli_perft_rejects_a_bad_position_with_a_clear_message():
    result = CliRunner().invoke(cli_main, ["perft", "2", "--position", "pr1 players=9"])
    assert result.exit_code != 0
    assert "Error:" in result.output and "position" in result.output


# ---- a stoppable perft (PRI `perft` runs it on a worker thread) -------------------------
STOPPABLE_NODE_LIMIT = 2_000_000


@pytest.mark.parametrize("position,counts", CASES)
def test_a_stoppable_perft_counts_what_the_c_perft_counts(position, counts):
    state = state_from_position(position, impl=State)
    for depth, expected in enumerate(counts, start=1):
        if expected > STOPPABLE_NODE_LIMIT:
            break
        assert perft(state, depth, stop=lambda: False) == expected
    assert perft(state, 0, stop=lambda: False) == 1


@pytest.mark.parametrize("position,counts", CASES[:6])
def test_a_stoppable_perft_agrees_on_the_reference_twin(position, counts):
    state = state_from_position(position, impl=ReferenceState)    # no C perft: all in Python
    for depth, expected in enumerate(counts, start=1):
        if expected > TWIN_NODE_LIMIT:
            break
        assert perft(state, depth, stop=lambda: False) == expected


def test_a_stoppable_perft_counts_a_seats_view_as_the_c_perft_does():
    from engine.random_play import random_action
    from engine.rng import Rng
    state = State.new_game(3, seed=7)
    rng = Rng(7)
    for _ in range(80):
        state.apply(random_action(state, rng))
    view = state.view(state.to_move)
    assert [perft(view, d, stop=lambda: False) for d in range(1, 6)] == [view.perft(d) for d in range(1, 6)]


def test_a_stopped_perft_says_what_it_had_counted():
    from engine.perft import PerftStopped
    state = State.new_game(2, seed=1)
    asked = []

    def stop():
        asked.append(1)
        return len(asked) > 50
    with pytest.raises(PerftStopped) as stopped:
        perft(state, 12, stop=stop)
    assert stopped.value.depth == 12 and stopped.value.counted > 0    # the finished subtrees
    assert "perft 12 stopped after counting" in str(stopped.value)
    with pytest.raises(PerftStopped) as at_once:
        perft(state, 3, stop=lambda: True)
    assert at_once.value.counted == 0
