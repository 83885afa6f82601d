"""The `--version` option of every command (palais, palais-engine, palais-tournament).

The number has one source: the installed package's metadata, which pyproject.toml sets.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

import click

PACKAGE = "palais-engine"


def installed_version() -> str:
    """The installed package's version ("0.1.0"), or "unknown" in a tree that is not installed."""
    try:
        return version(PACKAGE)
    except PackageNotFoundError:
        return "unknown"


def version_option(prog_name: str):
    """`--version`: prints "PROG VERSION" and exits."""
    return click.version_option(package_name=PACKAGE, prog_name=prog_name,
                                message="%(prog)s %(version)s")
