"""Figures saved as PNG files, for every command that draws one (`palais analyse --plot`,
`palais train --plot`): matplotlib loaded headless, a clear error when the `plot` extra is
missing, and a failed save named by its file. Plain Python; no engine code needs it."""

from __future__ import annotations

from .errors import PalaisError


def pyplot():
    """matplotlib.pyplot on the headless Agg backend, or a PalaisError saying how to get it."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise PalaisError("--plot needs matplotlib: pip install 'palais-engine[plot]'") from None
    return plt


def save_figure(fig, path: str, dpi: int = 100) -> None:
    """Write `fig` to `path` as a PNG and close it (also when the write fails)."""
    plt = pyplot()
    try:
        fig.savefig(path, dpi=dpi)
    except OSError as exc:
        raise PalaisError(f"{path}: cannot write the plot: {exc.strerror or exc}") from None
    finally:
        plt.close(fig)
