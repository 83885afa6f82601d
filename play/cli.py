"""The `palais` command: the rules tools of engine/cli.py plus play, hint and analyse.

It lives here, above the search and the protocol, so that the rules core never imports what
is built on it (engine -> search -> protocol -> play).
"""

from __future__ import annotations

import json
import secrets
import shutil
import sys

import click

from common.numbers import natural
from common.version import version_option
from engine.cli import main as rules_commands
from engine.errors import PalaisError
from engine.options import OPTIONS, RuleOptions
from jobs.backends import backend_options, check_backend
from protocol.sandbox_options import announce, sandbox_options
from search.algorithms import VIEW_ALGORITHMS
from search.kernel import kernel_name, kernel_report

from .board import want_color
from .hints import DEFAULT_ITERATIONS

main = click.Group(name="palais", help="Palais Royal tools: rules, play, hints, analysis and training.",
                   context_settings={"help_option_names": ["-h", "--help"]})
main = version_option("palais", details=kernel_report)(main)
for _name, _command in rules_commands.commands.items():
    main.add_command(_command, _name)


def _components(path):
    from engine.components import default_components, load_components
    return load_components(path) if path else default_components()


def read_secret(path: str) -> bytes:
    """The draw secret from a file, or from the first line of standard input for "-"."""
    from common.files import read_text_file
    from engine.chance import secret_from_hex
    text = sys.stdin.readline() if path == "-" else read_text_file(path, "secret file")
    return secret_from_hex(text, "standard input" if path == "-" else path)


def _rule_options(items) -> RuleOptions:
    return RuleOptions.from_items(items, "--rule")


def _limits(time_s, iterations, default_iterations):
    from search.params import SearchLimits
    if time_s is not None and iterations is not None:
        raise PalaisError("give a time or an iteration count, not both")
    if time_s is not None:
        if time_s <= 0:
            raise PalaisError("the time must be > 0 seconds")
        return SearchLimits(time_ms=time_s * 1000.0)
    return SearchLimits(iterations=iterations or default_iterations)


# ---- palais play ---------------------------------------------------------------------------

@main.command("play")
@click.option("--players", "-p", type=click.IntRange(2, 4), default=2, show_default=True)
@click.option("--seat", "seat_specs", multiple=True, metavar="SPEC",
              help=f"Who sits in the next seat, in order: human, {', '.join(VIEW_ALGORITHMS)} "
                   "(each may take search parameters: ismcts:preset=v26 or "
                   "ismcts:decision_share=0,exploration=0.5; docs/search.md) or "
                   "cmd:COMMAND (a PRI engine). Seats not given: seat 1 human, the others ismcts.")
@click.option("--seed", "-s", type=click.IntRange(0, 2 ** 63 - 1), default=None,
              help="Seeds the deal (tiles and layout) and the engines. Default: a new one each "
                   "game, printed at the start and kept in a saved game.")
@click.option("--secret-file", "secret_file", metavar="FILE",
              help="A file holding the draw secret (32 to 128 hex digits) that keys the card "
                   "draws, or - to read it from standard input: the same --seed and secret "
                   "draw the same cards. Default: a fresh one each game; no engine seat is "
                   "told it, and sandboxed engines cannot read the file.")
@click.option("--secret", "secret_hex", metavar="HEX", hidden=True,
              help="Refused: a secret on the command line is visible to every process.")
@click.option("--first-game", is_flag=True, help="Use the first-game room layout.")
@click.option("--rule", "rules", multiple=True, metavar="NAME=VALUE",
              help="A rule option, repeatable: " + ", ".join(spec.usage() for spec in OPTIONS) + ".")
@click.option("--components", "components_path", type=click.Path(dir_okay=False),
              help="A component-set TOML file (docs/components.md).")
@click.option("--load", "load_path", type=click.Path(dir_okay=False),
              help="Go on with a game saved with `save FILE` (a full game record).")
@click.option("--save", "autosave", type=click.Path(dir_okay=False),
              help="Write the game record to this file after every turn and at the end.")
@click.option("--engine-time", type=float, help="Seconds per engine turn (default: iterations).")
@click.option("--engine-iterations", type=click.IntRange(1), help="Iterations per engine turn [20000].")
@click.option("--hint-time", type=float, help="Seconds per hint (default: iterations).")
@click.option("--hint-iterations", type=click.IntRange(1), help="Iterations per hint [20000].")
@click.option("--color/--no-color", default=None, help="Colours on or off (default: on a terminal, "
                                                        "unless NO_COLOR is set).")
@sandbox_options
@click.option("--compact/--full-board", default=None,
              help="The compact board (at most 24 lines) or the full one (default: the full "
                   "one unless the terminal is too short for it).")
def play(players, seat_specs, seed, secret_file, secret_hex, first_game, rules, components_path, load_path,
         autosave, engine_time, engine_iterations, hint_time, hint_iterations, color, sandbox, compact):
    """Play a game in the terminal: any mix of people and engines."""

    from .game import PlayGame
    from .seats import open_seat, parse_seat
    from .terminal import Terminal
    seats = []
    try:
        components = _components(components_path)
        specs = [parse_seat(s) for s in seat_specs]
        if secret_hex is not None:
            raise PalaisError("--secret HEX is no longer taken: a secret on a command line can be "
                              "read by every process of the machine. Put it in a file and give "
                              "--secret-file FILE, or pipe it in with --secret-file -")
        secret = None if secret_file is None else read_secret(secret_file)
        if load_path and secret is not None:
            raise PalaisError("--secret-file starts a new game; a loaded game keeps its own")
        if load_path:
            game = PlayGame.load(load_path, components=components)
            players = game.n_players
        if len(specs) > players:
            raise PalaisError(f"{len(specs)} --seat options for {players} players")
        specs += [parse_seat("human" if q == 0 else "ismcts") for q in range(len(specs), players)]
        names = [s.label for s in specs]
        if seed is None:
            seed = game.seed if load_path else secrets.randbelow(2 ** 31)
        if not load_path:
            game = PlayGame.new(players, seed, names, components, _rule_options(rules), first_game,
                                secret=secret)
        else:
            game.names = names
        engine_limits = _limits(engine_time, engine_iterations, DEFAULT_ITERATIONS)
        hint_limits = _limits(hint_time, hint_iterations, DEFAULT_ITERATIONS)
        if any(spec.kind == "cmd" for spec in specs):
            announce(sandbox)
        sandbox = sandbox.hiding(*[p for p in (secret_file, load_path, autosave) if p and p != "-"])
        for q, spec in enumerate(specs):
            seats.append(open_seat(spec, engine_limits, seed * 10 + q, sandbox))
        kernel_name()                 # an unusable PALAIS_KERNEL: one line now, not mid-game
    except PalaisError as exc:
        for s in seats:
            if s is not None:
                s.close()
        raise click.ClickException(str(exc))

    def read_line(prompt):
        if sys.stdin.isatty():          # a person at a terminal: line editing and history
            try:
                return input(prompt)
            except EOFError:
                return None
        click.echo(prompt, nl=False)
        line = sys.stdin.readline()
        return line if line else None

    if sys.stdin.isatty():
        try:
            import readline  # noqa: F401 (input() edits lines and keeps a history once it is loaded)
        except ImportError:              # not on every platform (Windows): plain input
            pass

    want = want_color(color, sys.stdout)
    size = shutil.get_terminal_size()
    terminal = Terminal(game, seats, lambda text: click.echo(text, color=want), read_line,
                        color=want, hint_limits=hint_limits, hint_seed=seed, autosave=autosave,
                        width=size.columns, height=size.lines if sys.stdout.isatty() else None,
                        compact=compact)
    try:
        code = terminal.run()
    except KeyboardInterrupt:
        click.echo("\nInterrupted." + (f" The game so far is in {autosave}." if autosave else ""))
        code = 130
    finally:
        for s in terminal.seats:
            if s is not None:
                s.close()
    sys.exit(code)


# ---- palais hint ---------------------------------------------------------------------------

def _state_from_input(text: str, components):
    """A position string (pr1 ...), or a file holding a position string or a game record:
    (the state to hint, the seats' names from a record's Names header or None, the seats
    played by people from a saved game's People header or None)."""
    from common.files import read_text_file
    from engine.position import state_from_position
    from engine.record import read_record, replay

    from .terminal import PEOPLE_HEADER
    if text.lstrip().startswith("pr1"):
        return state_from_position(text, components=components), None, None
    content = read_text_file(text, "game record or position file")
    if content.lstrip().startswith("pr1"):
        return state_from_position(content.strip(), components=components), None, None
    rec = read_record(content, components)
    people = rec.headers.get(PEOPLE_HEADER)
    if people is not None:
        numbers = [natural(q.strip()) for q in people.split(",") if q.strip()]
        if None in numbers or not all(1 <= q <= rec.n_players for q in numbers):
            raise PalaisError(f"{text}: header {PEOPLE_HEADER!r}: expected seat numbers "
                              f"separated by ',', got {rec.headers[PEOPLE_HEADER]!r}")
        people = {q - 1 for q in numbers}
    return replay(rec, components=components), (rec.names or None), people


def _check_person_to_move(state, people) -> None:
    """A game saved by `palais play` names its people: a hint for another seat would show
    (and search from) an engine's hidden cards, so it is refused."""
    if not people or state.is_terminal() or state.is_chance() or state.to_move in people:
        return                      # (no people at all: engines only, nobody to hide from)
    seats = ", ".join(str(q + 1) for q in sorted(people))
    raise PalaisError(f"seat {state.to_move + 1} is to move, and it is played by an engine in "
                      f"this saved game: hints are only for the seats of people ({seats}), "
                      f"so the engine's hidden cards stay hidden")


@main.command("hint")
@click.argument("source")
@click.option("--moves", default="", metavar="TOKENS", help="Apply these tokens first.")
@click.option("--top", type=click.IntRange(1, 20), default=3, show_default=True)
@click.option("--time", "time_s", type=float, help="Seconds of search (default: iterations).")
@click.option("--iterations", type=click.IntRange(1), help="Iterations of search [20000].")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--board", "show_board", is_flag=True, help="Draw the board (as the seat to move sees it) first.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for programs.")
@click.option("--components", "components_path", type=click.Path(dir_okay=False))
def hint(source, moves, top, time_s, iterations, seed, show_board, as_json, components_path):
    """Hints for the seat to move in SOURCE: a position string (pr1 ...), or a file holding
    one or a game record (its last position). The search uses only what that seat knows."""
    from engine.notation import apply_tokens
    from .board import draw_board
    from .explain import wrap_lines
    from engine.views import view_for
    from .hints import find_hints, hint_lines
    try:
        components = _components(components_path)
        state, names, people = _state_from_input(source, components)
        if moves:
            apply_tokens(state, moves)
        _check_person_to_move(state, people)
        limits = _limits(time_s, iterations, DEFAULT_ITERATIONS)
        report = find_hints(state, limits, top=top, seed=seed)
    except PalaisError as exc:
        raise click.ClickException(str(exc))
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2))
        return
    if show_board:
        click.echo(draw_board(view_for(state, report.seat), seat=report.seat,
                              color=want_color(None, sys.stdout), names=names))
    click.echo("\n".join(wrap_lines(hint_lines(report, names), shutil.get_terminal_size().columns)))


# ---- palais analyse ------------------------------------------------------------------------

@main.command("analyse")
@click.argument("record_path", metavar="RECORD", type=click.Path(dir_okay=False))
@click.option("--time", "time_s", type=float, help="Seconds per search (default: iterations).")
@click.option("--iterations", type=click.IntRange(1), help="Iterations per search [10000].")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--mistake", type=float, default=0.10, show_default=True,
              help="The loss that makes a mistake (win probability while the game is open, "
                   "its share of the game's VP once it is decided: docs/play.md).")
@click.option("--blunder", type=float, default=0.20, show_default=True,
              help="The loss that makes a blunder.")
@click.option("--processes", type=click.IntRange(1, 64),
              help="Processes the turns are spread over [the machine's cores].")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False),
              help="Also write a PNG of each seat's win probability (needs matplotlib).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for programs.")
@click.option("--components", "components_path", type=click.Path(dir_okay=False))
@click.option("--engine", "engine_params", default="", metavar="NAME=VALUE,...",
              help="The judging search's parameters, as `palais play --seat ismcts:...` takes them "
                   "(e.g. preset=v27); default: the engine's defaults.")
def analyse(record_path, time_s, iterations, seed, mistake, blunder, processes, plot_path, as_json,
            components_path, engine_params):
    """Go through a game record turn by turn: the engine's preferred turn, what each played
    turn lost, mistakes, blunders and each seat's accuracy."""
    from rich.console import Console
    from rich.progress import Progress

    from .analyse import (Analyser, analyse_game, chart_observer, default_processes,
                          plot_win_probability, report_lines, seat_summary)
    from .explain import wrap_lines
    from .game import read_game
    try:
        components = _components(components_path)
        rec, start = read_game(record_path, components)
        from search.params import SearchParams, parse_params
        judge = SearchParams(**parse_params(engine_params)) if engine_params else None
        analyser = Analyser(_limits(time_s, iterations, 10_000), seed, mistake, blunder, params=judge)
        if plot_path:
            import importlib.util
            if importlib.util.find_spec("matplotlib") is None:
                raise PalaisError("--plot needs matplotlib: pip install 'palais-engine[plot]'")
        with Progress(console=Console(stderr=True), transient=True, disable=not sys.stderr.isatty()) as bar:
            task = bar.add_task("analysing", total=None)
            analyses = analyse_game(rec, start, analyser,
                                    on_turn=lambda i, n: bar.update(task, completed=i, total=n),
                                    processes=processes or default_processes())
        if plot_path:
            plot_win_probability(rec, analyses, plot_path)
    except PalaisError as exc:
        raise click.ClickException(str(exc))
    if as_json:
        seats = [seat_summary(analyses, q) for q in range(rec.n_players)]
        click.echo(json.dumps({"chart": chart_observer(rec), "turns": [t.to_dict() for t in analyses],
                               "seats": [s for s in seats if s is not None]}, indent=2))
    else:
        lines = report_lines(rec, analyses, mistake, blunder)
        click.echo("\n".join(wrap_lines(lines, shutil.get_terminal_size().columns)))
    if plot_path:
        click.echo(f"plot written to {plot_path}", err=True)


def _hidden_sizes(text: str) -> tuple:
    try:
        sizes = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise click.BadParameter(f"expected two sizes like 64,32, got {text!r}") from None
    if len(sizes) != 2:
        raise click.BadParameter(f"expected two sizes like 64,32, got {text!r}")
    return sizes


def _fit_policy(runs, options, folder):
    """The policy head fitted (PolicyFitOptions `options`) on the runs' policy rows and
    written beside the value's candidate: (path, arrays), or None (and a line saying so)
    when the runs hold none."""
    from search.policy_fit import fit_policy, unpack
    from search.train import policy_training_rows, write_policy_fit
    rows, games = policy_training_rows(runs)
    if len(rows) == 0:
        click.echo("no policy rows in these runs (made before the policy head): no policy fitted", err=True)
        return None

    def show_epoch(point):
        held = point["validation"]
        click.echo(f"policy epoch {point['epoch']}: training cross-entropy {point['train']:.4f}"
                   + (f", validation {held:.4f}" if held is not None else ""), err=True)
    arrays, curve = fit_policy(unpack(rows), games, options, progress=show_epoch)
    path, digest = write_policy_fit(folder, arrays, curve)
    kept_epoch = next(p["epoch"] for p in curve if p["kept"])
    click.echo(f"{len(rows)} policy rows; policy weights of epoch {kept_epoch} in {path} ({digest})")
    return path, arrays


GENERATION_ONLY = ("window", "sprt_elo0", "sprt_elo1", "max_gate_games", "min_gate_games", "stop_after")
SINGLE_ONLY = ("other_runs", "eval_deals", "out_path", "policy_out")


def _refuse_given(given: set, names, why: str) -> None:
    """A PalaisError naming the first option of `names` given on the command line."""
    for name in names:
        if name in given:
            flag = {"other_runs": "--with", "out_path": "--out"}.get(name, "--" + name.replace("_", "-"))
            raise PalaisError(f"{flag} {why}")


def _train_generations(run_folder, generations, plot_path, backend, concurrency, ray_address, **options):
    """`palais train RUN --generations N`: search/generations.py, its table at the end."""
    from search.generations import GenerationOptions, run_generations
    from search.policy import load_policy_model
    from search.value import check_players, load_value_model
    settings = GenerationOptions(**options).check()
    if settings.current != "heuristic":        # refuse a bad file before hours of games
        check_players(load_value_model(settings.current, settings.players), settings.players)
    if settings.policy_current not in ("uniform", "uct"):
        load_policy_model(settings.policy_current)
    check_backend(backend, ray_address)
    rows = run_generations(run_folder, settings, generations, say=lambda line: click.echo(line, err=True),
                           backend=backend, concurrency=concurrency, ray_address=ray_address)
    _print_generations(rows, plot_path)


def _generations_report(run_folder, plot_path):
    from search.generations import read_table
    _print_generations(read_table(run_folder), plot_path)


def _print_generations(rows, plot_path):
    from search.generations import plot_generations, table_lines
    click.echo("\n".join(table_lines(rows)))
    if plot_path:
        plot_generations(rows, plot_path)
        click.echo(f"plot written to {plot_path}", err=True)


@main.command("train")
@click.argument("run_folder", metavar="RUN", type=click.Path(file_okay=False))
@click.option("--games", type=click.IntRange(1, 1_000_000), default=200, show_default=True,
              help="Self-play games in the run in all (those already in RUN are kept).")
@click.option("--players", type=click.IntRange(2, 4), default=2, show_default=True)
@click.option("--iterations", type=click.IntRange(1, 1_000_000), default=200, show_default=True,
              help="Iterations per search in the self-play games.")
@click.option("--positions", type=click.IntRange(1, 1000), default=8, show_default=True,
              help="Positions sampled per game (one training row per seat each).")
@click.option("--seed", type=click.IntRange(0, 2 ** 62 - 1), default=1, show_default=True,
              help="Seeds the games, the sampling and the fit.")
@click.option("--fast-share", type=click.FloatRange(0, 1, max_open=True), default=0.0, show_default=True,
              help="Playout-cap randomisation: this share of the self-play searches are fast ones "
                   "(--fast-iterations), not used as policy targets.")
@click.option("--fast-iterations", type=click.IntRange(0, 1_000_000), default=0, show_default=True,
              help="Iterations of a fast search (1 .. --iterations - 1; needed with --fast-share).")
@click.option("--with", "other_runs", multiple=True, metavar="RUN2", type=click.Path(file_okay=False),
              help="Also fit on the games of this earlier run (repeatable; e.g. other player counts).")
@click.option("--epochs", type=click.IntRange(1, 10_000), default=20, show_default=True)
@click.option("--hidden", default="64,32", show_default=True, help="The two hidden layers' sizes.")
@click.option("--head", type=click.Choice(["scalar", "vector"]), default="scalar", show_default=True,
              help="The value model's output: one seat's share from its own view (scalar, weights "
                   "format 1), or every seat's share and score from one seat's view for the run's "
                   "player count (vector, format 2).")
@click.option("--learning-rate", type=click.FloatRange(0, 1, min_open=True), default=3e-4, show_default=True)
@click.option("--weight-decay", type=click.FloatRange(0, 1), default=1e-2, show_default=True,
              help="L2 penalty on the weight matrices.")
@click.option("--eval-deals", type=click.IntRange(0, 100_000), default=20, show_default=True,
              help="Deals of the match against the current weights (each once per seat); 0: no match.")
@click.option("--eval-iterations", type=click.IntRange(1, 1_000_000), default=400, show_default=True,
              help="Iterations per search in that match (with --generations: in the gate).")
@click.option("--current", default="", metavar="FILE|heuristic",
              help="The weights to beat (default: the shipped ones); heuristic: the static evaluation.")
@click.option("--out", "out_path", type=click.Path(dir_okay=False),
              help="Where kept weights go [RUN/value.npz].")
@click.option("--policy-hidden", type=click.IntRange(1, 256), default=32, show_default=True,
              help="The policy head's hidden layer size.")
@click.option("--policy-learning-rate", type=click.FloatRange(0, 1, min_open=True), default=1e-3,
              show_default=True)
@click.option("--policy-target", type=click.Choice(["visits", "q"]), default="visits", show_default=True,
              help="What the policy learns: the root's visit distribution, or softmax(--policy-q-scale "
                   "x each root action's mean reward).")
@click.option("--policy-q-scale", type=click.FloatRange(0, 1000, min_open=True), default=20.0, show_default=True)
@click.option("--policy-current", default=None, metavar="FILE|uniform|uct",
              help="The search the policy candidate must beat: PUCT with 1/n priors (uniform, the "
                   "default), the same search with UCB1 selection (uct), or PUCT with a policy weights "
                   "file; with --generations, generation 0's policy [the shipped one].")
@click.option("--policy-out", "policy_out", type=click.Path(dir_okay=False),
              help="Where a kept policy goes [RUN/policy.npz].")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False),
              help="Also write a PNG of the training curve, or with --generations / "
                   "--generations-report of each generation's Elo (needs matplotlib).")
@click.option("--generations", type=click.IntRange(1, 999), default=None,
              help="Train in generations (docs/train.md): this many, each --games self-play games "
                   "with the best so far, a fit, a gate against the best (SPRT), keep or discard.")
@click.option("--window", type=click.IntRange(1, 999), default=1, show_default=True,
              help="With --generations: fit on this generation's games and those of the window-1 before.")
@click.option("--sprt-elo0", type=float, default=0.0, show_default=True,
              help="With --generations: the gate's SPRT H0 (the candidate is this many Elo better).")
@click.option("--sprt-elo1", type=float, default=30.0, show_default=True,
              help="With --generations: the gate's SPRT H1; H1 keeps the candidate, H0 or the cap discards it.")
@click.option("--max-gate-games", type=click.IntRange(2, 1_000_000), default=400, show_default=True,
              help="With --generations: the gate's cap (whole deals, each played once per seat).")
@click.option("--min-gate-games", type=click.IntRange(0, 1_000_000), default=20, show_default=True,
              help="With --generations: no SPRT decision before this many gate games.")
@click.option("--stop-after", type=click.IntRange(1, 999), default=3, show_default=True,
              help="With --generations: stop after this many generations in a row without a kept candidate.")
@click.option("--generations-report", is_flag=True,
              help="Print RUN's generations table (and --plot its chart); plays nothing.")
@backend_options
@click.pass_context
def train(ctx, run_folder, games, players, iterations, positions, seed, fast_share, fast_iterations, other_runs, epochs, hidden, head,
          learning_rate, weight_decay, eval_deals, eval_iterations, current, out_path, policy_hidden, policy_learning_rate,
          policy_target, policy_q_scale, policy_current, policy_out, plot_path, generations, window, sprt_elo0,
          sprt_elo1, max_gate_games, min_gate_games, stop_after, generations_report, concurrency, backend, ray_address):
    """Learn the search's value model and policy head from self-play (docs/train.md): play
    the run's games (resumable), fit both, play each against what it would replace, keep
    each that wins; or, with --generations N, do that generation after generation with the
    best so far. The games (self-play and matches) run --concurrency at once, on local
    processes or as Ray tasks; every backend gives the same games."""
    import importlib.util
    from pathlib import Path

    given = {name for name in ctx.params
             if ctx.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE}
    try:
        if plot_path and importlib.util.find_spec("matplotlib") is None:
            raise PalaisError("--plot needs matplotlib: pip install 'palais-engine[plot]'")
        if generations_report:
            return _generations_report(run_folder, plot_path)
        if generations is None:
            _refuse_given(given, GENERATION_ONLY, "needs --generations")
        else:
            _refuse_given(given, SINGLE_ONLY, "is not taken with --generations (see docs/train.md)")
            return _train_generations(run_folder, generations, plot_path, backend, concurrency, ray_address,
                                      seed=seed, players=players, games=games, iterations=iterations,
                                      positions=positions, fast_share=fast_share,
                                      fast_iterations=fast_iterations, window=window, hidden=_hidden_sizes(hidden),
                                      epochs=epochs, learning_rate=learning_rate, weight_decay=weight_decay,
                                      head=head, policy_hidden=policy_hidden,
                                      policy_learning_rate=policy_learning_rate, policy_target=policy_target,
                                      policy_q_scale=policy_q_scale, gate_iterations=eval_iterations,
                                      sprt_elo0=sprt_elo0, sprt_elo1=sprt_elo1, max_gate_games=max_gate_games,
                                      min_gate_games=min_gate_games, stop_after=stop_after, current=current,
                                      policy_current="" if policy_current is None else policy_current)
    except PalaisError as exc:
        raise click.ClickException(str(exc))
    if policy_current is None:
        policy_current = "uniform"

    from search.policy import load_policy_model, save_policy_weights
    from search.policy_fit import PolicyFitOptions
    from search.train import (SCALAR, FitOptions, GameOptions, Head, RunFolder, fit, generate, match,
                              plot_curve, check_distinct, policy_match, training_rows, vector_training_rows,
                              write_fit)
    from search.value import check_players, load_value_model, save_weights
    try:
        fit_options = FitOptions(hidden=_hidden_sizes(hidden), epochs=epochs,
                                 learning_rate=learning_rate, weight_decay=weight_decay,
                                 seed=seed).check()
        if eval_deals and current != "heuristic":      # refuse a bad file before hours of games
            check_players(load_value_model(current, players), players)
        if eval_deals and policy_current not in ("uniform", "uct"):
            load_policy_model(policy_current)
        where = {"backend": backend, "concurrency": concurrency, "ray_address": ray_address}
        check_backend(backend, ray_address)      # before the run's folder is made
        check_distinct([run_folder, *other_runs])
        others = [RunFolder.existing(folder) for folder in other_runs]
        value_head = Head(players) if head == "vector" else SCALAR
        if value_head.players and any(other.options.players != players for other in others):
            raise PalaisError(f"--head vector fits one player count ({players}): "
                              + ", ".join(f"{o.folder} holds {o.options.players}-player games" for o in others
                                          if o.options.players != players))
        run = RunFolder(run_folder, GameOptions(seed=seed, players=players, iterations=iterations,
                                                positions=positions, fast_share=fast_share,
                                                fast_iterations=fast_iterations))
        if len(run.games) >= games:
            click.echo(f"{len(run.games)} games already in {run_folder}", err=True)
        else:
            with click.progressbar(length=games - len(run.games), label="self-play games",
                                   file=sys.stderr) as bar:
                generate(run, games, progress=bar.update, **where)
        rows_of = vector_training_rows if value_head.players else training_rows
        x, y, game_of_row = rows_of([run] + others)
        def show_epoch(point):
            held = point["validation"]
            click.echo(f"epoch {point['epoch']}: training loss {point['train']:.4f}"
                       + (f", validation {held:.4f}" if held is not None else ""), err=True)
        arrays, curve = fit(x, y, game_of_row, fit_options, progress=show_epoch, head=value_head)
        candidate = write_fit(Path(run_folder), arrays, curve)
        kept_epoch = next(p["epoch"] for p in curve if p["kept"])
        games_fitted = sum(len(r.games) for r in [run] + others)
        what = f"a vector head for {players} players" if value_head.players else "weights"
        click.echo(f"{games_fitted} games, {len(x)} rows; {what} of epoch {kept_epoch} in {candidate}")
        if plot_path:
            plot_curve(curve, plot_path)
            click.echo(f"plot written to {plot_path}", err=True)
        policy_options = PolicyFitOptions(hidden=policy_hidden, epochs=epochs, learning_rate=policy_learning_rate,
                                          seed=seed, target=policy_target, q_scale=policy_q_scale)
        policy = _fit_policy([run] + others, policy_options, Path(run_folder))
        if not eval_deals:
            return
        with click.progressbar(length=eval_deals * players, label="match against the current weights",
                               file=sys.stderr) as bar:
            result = match(candidate, current, eval_deals, players, eval_iterations, seed,
                           progress=bar.update, **where)
        click.echo(result.line())
        if result.score > 1.0 / players:
            target = out_path or str(Path(run_folder) / "value.npz")
            digest = save_weights(target, arrays)
            click.echo(f"kept: {target} ({digest})")
        else:
            click.echo("not kept: the new weights did not beat the current ones")
        if policy is None:
            return
        with click.progressbar(length=eval_deals * players, label="match of the policy candidate",
                               file=sys.stderr) as bar:
            result = policy_match(policy[0], policy_current, eval_deals, players, eval_iterations, seed,
                                  progress=bar.update, **where)
        click.echo("policy: " + result.line().replace("new weights", "PUCT on the candidate"))
        if result.score > 1.0 / players:
            target = policy_out or str(Path(run_folder) / "policy.npz")
            digest = save_policy_weights(target, policy[1])
            click.echo(f"policy kept: {target} ({digest})")
        else:
            click.echo(f"policy not kept: it did not beat {policy_current}")
    except PalaisError as exc:
        raise click.ClickException(str(exc))


if __name__ == "__main__":
    sys.exit(main())
