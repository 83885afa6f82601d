"""The `palais-engine` command: serve PRI on stdin/stdout (docs/protocol.md)."""

import click


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
def main():
    """Speak PRI on standard input and output until 'quit' or the end of input."""
    from .server import main as serve
    serve()


if __name__ == "__main__":
    main()
