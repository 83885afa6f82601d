"""`palais-tournament`: play PRI engines against each other, fairly, and report the standings."""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path

import click

from common.atomic_write import write_text_atomic
from common.version import version_option
from common.words import plural
from engine.errors import PalaisError
from jobs.backends import backend_options
from protocol.sandbox_options import announce, sandbox_options


def _parse_sprt(text):
    from .stats import SPRT
    values = {}
    for item in text.split():
        key, eq, value = item.partition("=")
        if not eq or key not in ("elo0", "elo1", "alpha", "beta"):
            raise click.BadParameter(f"'{item}': expected elo0= elo1= [alpha=] [beta=]")
        try:
            values[key] = float(value)
        except ValueError:
            raise click.BadParameter(f"'{item}': not a number") from None
    if "elo0" not in values or "elo1" not in values:
        raise click.BadParameter("needs elo0= and elo1=")
    return SPRT(**values)


def _write_summary(out: Path, summary: dict) -> None:
    write_text_atomic(out / "summary.json", json.dumps(summary, indent=2, sort_keys=True))
    table = io.StringIO()
    writer = csv.writer(table)
    writer.writerow(["engine", "games", "avg_rank", "win_share", "mu", "sigma"])
    for name, e in summary["engines"].items():
        writer.writerow([name, e["games"], e["avg_rank"], e["win_share"], e["mu"], e["sigma"]])
    write_text_atomic(out / "summary.csv", table.getvalue())


def _signed(x: float) -> str:
    """An Elo figure with its sign, never "-0"."""
    return f"{(round(x) or 0):+d}"


def _elo_cell(p: dict) -> str:
    if p["elo_low"] is None:
        return f"{_signed(p['elo'])} [n/a]"
    return f"{_signed(p['elo'])} [{_signed(p['elo_low'])}, {_signed(p['elo_high'])}]"


def _print_tables(summary: dict) -> None:
    """The standings as tables. Engine names are never wrapped or cut: the other columns are
    kept short instead (their meaning is in the captions and docs/tournament.md)."""
    from rich import box
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table
    console = Console()
    names = [n for n, e in summary["engines"].items() if e["games"]]
    longest = max((len(n) for n in names), default=6)

    def name_column(table, title):
        table.add_column(title, no_wrap=True, min_width=max(longest, len(title)))

    table = Table(title=plural(summary["games"], "game"), caption="rating: openskill mu ± 2 sigma")
    name_column(table, "engine")
    for column in ("games", "avg rank", "win share", "rating"):
        table.add_column(column, no_wrap=True)
    for name, e in sorted(summary["engines"].items(), key=lambda kv: -(kv[1]["mu"])):
        if not e["games"]:
            continue
        table.add_row(escape(name), str(e["games"]), f"{e['avg_rank']:.2f}", f"{e['win_share']:.3f}",
                      f"{e['mu']:.1f} ± {2 * e['sigma']:.1f}")
    console.print(table)
    pairings = summary.get("pairings") or {}
    if pairings:
        pt = Table(title="two-player pairings", box=box.SIMPLE_HEAD, pad_edge=False,
                   collapse_padding=True,
                   caption="Elo with its 95% interval (n/a: too few pairs to measure the spread); "
                           "pairs: seat-swapped pairs scoring 0/.5/1/1.5/2")
        halves = [label.partition(" vs ") for label in pairings]
        pt.add_column("pairing", no_wrap=True,
                      min_width=max(max(len(a), len(b) + 3) for a, _, b in halves))
        for column in ("W-D-L", "score", "Elo (95%)", "LOS", "pairs"):
            pt.add_column(column, no_wrap=True)
        for (a, _, b), p in zip(halves, pairings.values()):
            pt.add_row(escape(f"{a}\nvs {b}"), f"{p['wins']}-{p['draws']}-{p['losses']:g}",
                       f"{p['score']:.3f}", escape(_elo_cell(p)),
                       "n/a" if p["los"] is None else f"{p['los']:.3f}",
                       "/".join(map(str, p["pentanomial"])))
        console.print(pt)
    if len(names) > 2 or not pairings:
        h2h = Table(title="head to head: how often the row ranked above the column",
                    caption="columns are numbered as the rows")
        h2h.add_column("", no_wrap=True, min_width=longest + 2)
        for i, _n in enumerate(names, 1):
            h2h.add_column(str(i), no_wrap=True)
        for i, n in enumerate(names, 1):
            row = summary["engines"][n]["head_to_head"]
            h2h.add_row(escape(f"{i} {n}"), *[f"{row[m]:.3f}" if m in row else "-" for m in names])
        console.print(h2h)
    for f in summary["forfeits"]:
        console.print(f"game {f['game']}: {f['engine']} forfeits: {escape(f['reason'])}")
    for words in summary.get("sandbox", []):
        console.print(f"sandbox: {escape(words)}")
    if "sprt" in summary:
        console.print(f"SPRT: {summary['sprt']}")


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@version_option("palais-tournament")
@click.option("--engine", "engines", multiple=True, required=True,
              help='An engine: name=NAME cmd="COMMAND ARGS" [option.NAME=VALUE ...]. Repeat for each.')
@click.option("--players", type=click.IntRange(2, 4), default=2, show_default=True)
@click.option("--deals", type=click.IntRange(1, 1_000_000), default=10, show_default=True,
              help="Deals; each is played once per seat rotation by every group of engines.")
@click.option("--schedule", type=click.Choice(["gauntlet", "round-robin"]), default="gauntlet",
              show_default=True, help="gauntlet: the first engine against the others.")
@click.option("--tc", "tc_text", default="movetime=250", show_default=True,
              help="movetime=MS, clock=MS[+INC] or iterations=N.")
@click.option("--margin-ms", type=click.IntRange(0, 600_000), default=500, show_default=True,
              help="How long past its time an engine may answer before it forfeits.")
@click.option("--safety-timeout", type=click.FloatRange(1, 86_400), default=600, show_default=True,
              metavar="SECONDS", help="How long an answer with no time budget (a search by "
                                      "iterations, the handshake) may take before the engine forfeits.")
@backend_options
@sandbox_options
@click.option("--out", "out_dir", type=click.Path(file_okay=False), required=True,
              help="Folder for the progress, the records and the summary.")
@click.option("--resume", is_flag=True, help="Continue the run saved in --out.")
@click.option("--sprt", "sprt_text", default=None, help='Stop when decided: "elo0=0 elo1=10 alpha=0.05 beta=0.05".')
@click.option("--first-seed", type=int, default=1, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON instead of tables.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def main(engines, players, deals, schedule, tc_text, margin_ms, safety_timeout, concurrency, backend,
         ray_address, sandbox, out_dir, resume, sprt_text, first_seed, as_json, quiet):
    """Play PRI engines against each other over seat-rotated deals and report the standings."""
    from .arbiter import TimeControl
    from .engines import check_engines, parse_engine
    from .runner import Settings, run, standings_text
    try:
        specs = [parse_engine(text) for text in engines]
        check_engines(specs, local=backend == "local")
        tc = TimeControl.parse(tc_text, margin_ms, safety_timeout)
        sprt = _parse_sprt(sprt_text) if sprt_text else None
        settings = Settings(specs, players, deals, schedule, first_seed, tc)
    except PalaisError as exc:
        raise click.ClickException(str(exc))
    announce(sandbox)
    progress = None
    if not quiet and sys.stderr.isatty():
        from rich.progress import Progress
        progress = Progress(transient=False)
        progress.start()
        task = progress.add_task("games", total=None)

    def on_game(games, planned):
        if progress is not None:
            progress.update(task, completed=len(games), total=planned,
                            description=standings_text(settings, games))
        elif not quiet:
            click.echo(f"{len(games)}/{planned} games  {standings_text(settings, games)}", err=True)

    try:
        summary = run(settings, out_dir, concurrency, resume, sprt, on_game,
                      backend=backend, ray_address=ray_address, sandbox=sandbox)
    except PalaisError as exc:
        raise click.ClickException(str(exc))
    except KeyboardInterrupt:
        click.echo("\ninterrupted: finished games are saved; continue with --resume", err=True)
        sys.exit(130)
    finally:
        if progress is not None:
            progress.stop()
    try:
        _write_summary(Path(out_dir), summary)
    except PalaisError as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        raise click.ClickException(f"{exc.filename}: cannot write: {exc.strerror or exc}") from None
    if as_json:
        click.echo(json.dumps(summary, indent=2, sort_keys=True))
    else:
        _print_tables(summary)


if __name__ == "__main__":
    main()
