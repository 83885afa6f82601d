"""The `--version` option of every command (palais, palais-engine, palais-tournament).

The number has one source: the installed package's metadata, which pyproject.toml sets.
"""

from __future__ import annotations

import click

PACKAGE = "palais-engine"


def version_option(prog_name: str):
    """`--version`: prints "PROG VERSION" and exits."""
    return click.version_option(package_name=PACKAGE, prog_name=prog_name,
                                message="%(prog)s %(version)s")
