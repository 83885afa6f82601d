"""The `--version` option of every command (palais, palais-engine, palais-tournament).

The number has one source: the installed package's metadata, which pyproject.toml sets.
A command may add a line of its own after it (`details`: e.g. which value kernel runs).
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import Callable

import click

PACKAGE = "palais-engine"


def installed_version() -> str:
    """The installed package's version ("0.1.0"), or "unknown" in a tree that is not installed."""
    try:
        return version(PACKAGE)
    except PackageNotFoundError:
        return "unknown"


def version_option(prog_name: str, details: Callable[[], str] | None = None):
    """`--version`: prints "PROG VERSION", then the line details() returns if given, and exits."""
    def show(ctx, _param, value):
        if not value or ctx.resilient_parsing:
            return
        click.echo(f"{prog_name} {installed_version()}")
        if details is not None:
            click.echo(details())
        ctx.exit()
    return click.option("--version", is_flag=True, expose_value=False, is_eager=True,
                        callback=show, help="Show the version and exit.")
