"""The `palais` command line: thin click wrappers over the rules core.

`palais random-game` plays a seeded game of uniformly random moves and prints a summary
(every action too with --moves; optionally writing a game record); `palais perft` counts action sequences from a new
game or a position string, with a per-action divide. Later issues add search commands here.
"""

from __future__ import annotations

import sys

import click

from common.words import plural

from .constants import ROOMS, S_SETUP
from .errors import PalaisError
from .rng import Rng


def _implementation(reference: bool):
    if reference:
        from .reference import ReferenceState
        return ReferenceState
    from .state import State
    return State


def _load_components(path):
    from .components import default_components, load_components
    return load_components(path) if path else default_components()


def _layout_text(layout) -> str:
    return " / ".join(" ".join(ROOMS[r] for r in layout[row * 3:row * 3 + 3]) for row in range(3))


def _turn_label(state) -> str:
    if state.stage == S_SETUP:
        return f"setup    seat {state.to_move + 1}"
    return f"round {state.snapshot().round:<2} seat {state.to_move + 1}"


def _summary_lines(state, n_actions: int) -> list:
    """The end of a game in a few lines a newcomer can read: rounds, each seat's score and
    the nobles it recruited, the winner."""
    snap = state.snapshot()
    tiles = state.components.tiles
    scores, returns = state.scores(), state.returns()
    lines = [f"game over after {plural(snap.round, 'round')} ({plural(n_actions, 'action')}, "
             f"setup and card draws included)"]
    for q in range(state.n_players):
        mine = [tiles[t] for t, owner in enumerate(snap.owner) if owner == q]
        nobles = f"{plural(len(mine), 'noble')} recruited"
        if mine:
            nobles += (f", worth {sum(t.vp for t in mine)} VP ("
                       + " ".join(f"#{t.number}" for t in mine) + ")")
        lines.append(f"  seat {q + 1}: {scores[q]} VP, {nobles}")
    winners = [q for q, r in enumerate(returns) if r > 0]
    lines.append("winner: " + " and ".join(f"seat {q + 1}" for q in winners))
    return lines


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def main():
    """Palais Royal tools."""


@main.command("random-game")
@click.option("--players", "-p", type=click.IntRange(2, 4), default=3, show_default=True,
              help="Number of players.")
@click.option("--seed", "-s", type=int, default=1, show_default=True,
              help="Seeds both the deal and the random moves.")
@click.option("--first-game", is_flag=True, help="Use the first-game room layout.")
@click.option("--components", "components_path", type=click.Path(dir_okay=False),
              help="A component-set TOML file (docs/components.md); default: the built-in set.")
@click.option("--record", "record_path", type=click.Path(dir_okay=False, writable=True),
              help="Also write the game record (docs/notation.md) to this file.")
@click.option("--reference", is_flag=True, help="Play through the plain-Python reference twin.")
@click.option("--moves", "show_moves", is_flag=True,
              help="Also list every action, turn by turn, in notation (docs/notation.md).")
def random_game(players, seed, first_game, components_path, record_path, reference, show_moves):
    """Play a game of uniformly random moves and print a summary: rounds, scores, the nobles
    each seat recruited and the winner (--moves: every action too)."""
    from .notation import action_to_token
    from .random_play import random_action
    try:
        components = _load_components(components_path)
        state = _implementation(reference).new_game(players, seed=seed, components=components,
                                                    first_game=first_game)
    except PalaisError as exc:
        raise click.ClickException(str(exc))
    snap = state.snapshot()
    click.echo(f"Palais Royal: {players} players, seed {seed}, component set {components.name}"
               + (" (reconstructed)" if components.reconstructed else ""))
    click.echo(f"layout: {_layout_text(snap.layout)}")
    rng = Rng(seed)
    actions = []
    label, tokens = None, []
    while not state.is_terminal():
        current = _turn_label(state)
        if current != label:
            if tokens and show_moves:
                click.echo(f"{label}: {' '.join(tokens)}")
            label, tokens = current, []
        action = random_action(state, rng)
        tokens.append(action_to_token(action))
        actions.append(action)
        state.apply(action)
    if tokens and show_moves:
        click.echo(f"{label}: {' '.join(tokens)}")
    for line in _summary_lines(state, len(actions)):
        click.echo(line)
    if not show_moves:
        click.echo("(--moves lists every action turn by turn)")
    if record_path:
        from .record import record_from_actions, write_record
        record = record_from_actions(players, actions, seed=seed, first_game=first_game,
                                     components=components)
        from common.atomic_write import write_text_atomic
        try:
            write_text_atomic(record_path, write_record(record))
        except PalaisError as exc:                  # not a regular file: refused, nothing written
            raise click.ClickException(str(exc)) from None
        except OSError as exc:
            raise click.ClickException(f"{record_path}: cannot write: {exc.strerror or exc}") from None
        click.echo(f"record written to {record_path}")


@main.command("perft")
@click.argument("depth", type=click.IntRange(0, 12))
@click.option("--players", "-p", type=click.IntRange(2, 4), default=2, show_default=True,
              help="Players, for a new game.")
@click.option("--seed", "-s", type=int, default=1, show_default=True, help="Deal seed, for a new game.")
@click.option("--first-game", is_flag=True, help="First-game layout, for a new game.")
@click.option("--position", "position", help="Start from this position string instead of a new game.")
@click.option("--moves", default="", help="Tokens to apply first (docs/notation.md).")
@click.option("--divide", is_flag=True, help="Print the count after each legal action.")
@click.option("--components", "components_path", type=click.Path(dir_okay=False),
              help="A component-set TOML file; default: the built-in set.")
@click.option("--reference", is_flag=True, help="Count with the plain-Python reference twin (slow).")
def perft_command(depth, players, seed, first_game, position, moves, divide, components_path, reference):
    """Count the sequences of DEPTH decisions and chance events (RULES.md §10)."""
    from .notation import action_to_token, apply_tokens, state_from_position
    from .perft import perft, perft_divide
    impl = _implementation(reference)
    try:
        components = _load_components(components_path)
        if position:
            state = state_from_position(position, impl=impl, components=components)
        else:
            state = impl.new_game(players, seed=seed, components=components, first_game=first_game)
        if moves:
            apply_tokens(state, moves)
    except PalaisError as exc:
        raise click.ClickException(str(exc))
    if divide and depth >= 1:
        total = 0
        for action, count in perft_divide(state, depth):
            click.echo(f"{action_to_token(action)}: {count}")
            total += count
        click.echo(f"\nNodes searched: {total}")
    else:
        count = perft(state, depth) if reference else state.perft(depth)
        click.echo(f"Nodes searched: {count}")


if __name__ == "__main__":
    sys.exit(main())
