"""The sandbox's command-line options, declared once for every command that starts engine
processes (palais-tournament, palais play, palais serve):

  --sandbox auto|required|off   (auto: sandboxed where this machine can, else a warning)
  --sandbox-memory MIB          (each engine's memory limit)
  --sandbox-read PATH           (more paths engines may read, repeatable)

`sandbox_options` adds them and hands the command one `sandbox` argument, a SandboxPolicy
already checked: `required` where no sandbox can be made stops the command with the reason,
and `auto` that falls back says so once on standard error, before anything starts.
"""

from __future__ import annotations

import functools
import os

import click

from .sandbox import DEFAULT_MODE, MODES, Limits, SandboxPolicy, SandboxUnavailable, in_force, support

MEMORY_RANGE_MIB = (64, 1 << 20)


def announce(policy: SandboxPolicy) -> str:
    """Check `policy` here and return what is in force, in words; a ClickException for
    `required` that cannot be met, and one warning line on standard error when `auto` runs
    engines unsandboxed."""
    try:
        words = in_force(policy)
    except SandboxUnavailable as exc:
        raise click.ClickException(str(exc)) from None
    if policy.mode == "auto" and not support().full:
        click.echo(f"warning: engines are not sandboxed in this run, so they are trusted: "
                   f"{support().why}", err=True)
    return words


def sandbox_options(command):
    """Add the sandbox options to a click command; it receives `sandbox` (a SandboxPolicy)."""
    @functools.wraps(command)
    def wrapper(*args, sandbox_mode, sandbox_memory, sandbox_read, **kwargs):
        policy = SandboxPolicy(sandbox_mode, Limits(memory_mib=sandbox_memory),
                               tuple(os.path.abspath(p) for p in sandbox_read))
        return command(*args, sandbox=policy, **kwargs)

    options = [
        click.option("--sandbox", "sandbox_mode", type=click.Choice(MODES), default=DEFAULT_MODE,
                     show_default=True,
                     help="Engine processes run sandboxed (bubblewrap: no network, read-only "
                          "files, a private /tmp, memory and process limits). auto: where this "
                          "machine can, else a warning that engines are trusted; required: "
                          "refuse to start without it; off: engines are trusted."),
        click.option("--sandbox-memory", type=click.IntRange(*MEMORY_RANGE_MIB), default=Limits().memory_mib,
                     show_default=True, metavar="MIB",
                     help="Memory limit of each sandboxed engine (with all it starts), MiB."),
        click.option("--sandbox-read", multiple=True, metavar="PATH",
                     type=click.Path(exists=True),
                     help="Another file or folder sandboxed engines may read (repeatable); what "
                          "their command line names is readable already."),
    ]
    for option in reversed(options):
        wrapper = option(wrapper)
    return wrapper
