"""The `palais-engine` command: serve PRI on stdin/stdout, or check an engine's compliance."""

import sys

import click

from engine.version import version_option


@click.group(invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@version_option("palais-engine")
@click.pass_context
def main(ctx):
    """Speak PRI (docs/protocol.md) on standard input and output until 'quit' or the end of
    input. 'palais-engine compliance -- COMMAND' checks any PRI engine instead."""
    if ctx.invoked_subcommand is None:
        from .server import main as serve
        serve()


@main.command()
@click.option("--timeout", type=click.FloatRange(0.5, 600), default=10.0, show_default=True,
              help="Seconds an engine may stay silent when an answer is due.")
@click.argument("command", nargs=-1, required=True)
def compliance(timeout, command):
    """Run the PRI compliance steps against COMMAND (e.g. -- palais-engine); exit 1 on failure."""
    from .compliance import Compliance
    ok = Compliance(list(command), timeout=timeout, out=click.echo).run()
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
