"""The `palais-engine` command: serve PRI on stdin/stdout, or check an engine's compliance."""

import sys

import click

from common.version import version_option
from search.kernel import kernel_name, kernel_report


@click.group(invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@version_option("palais-engine", details=kernel_report)
@click.option("--weights", "weights_path", type=click.Path(dir_okay=False), metavar="FILE",
              help="Start with the learned value model of FILE (the 'learned' preset: Leaf Eval "
                   "value at a short rollout's cutoff; docs/train.md).")
@click.pass_context
def main(ctx, weights_path):
    """Speak PRI (docs/protocol.md) on standard input and output until 'quit' or the end of
    input. 'palais-engine compliance -- COMMAND' checks any PRI engine instead."""
    if ctx.invoked_subcommand is None:
        from engine.errors import PalaisError
        from search.params import PRESETS
        from search.value import load_value_model

        from .server import main as serve
        start = None
        try:
            kernel_name()                 # a bad PALAIS_KERNEL: one line, before serving
        except PalaisError as exc:
            raise click.ClickException(str(exc))
        if weights_path is not None:
            try:
                load_value_model(weights_path)
            except PalaisError as exc:
                raise click.ClickException(str(exc))
            start = {**PRESETS["learned"], "value_weights": weights_path}
        serve(start)


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
