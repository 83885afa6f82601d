"""Which kernel the learned value model's forward pass runs, and PALAIS_KERNEL.

search/_value.pyx has two kernels (search/value_kernel.h): "avx2+fma", compiled per function
for AVX2 and FMA and used when the processor has them, and "portable", plain C for the
baseline instruction set (the same bits as the value model has always given). At import the
best one available is chosen; the environment variable PALAIS_KERNEL overrides it:

  unset, "" or "auto"   the best available
  "portable"            the portable kernel (to test it, or to compare)
  "avx2+fma"            the AVX2/FMA kernel; an error where this build or processor lacks it

Any other value is an error (PalaisError, one line) when a value search starts or the kernel
is asked for; `palais --version` and the engine's handshake report the kernel in use.

What a kernel's arithmetic should cost (arithmetic_estimate_ns): its multiply-adds at a
nominal rate, one vector of fused multiply-adds a cycle at 2 GHz (avx2+fma: 8 lanes, 16 a
ns) or one SSE multiply and one add a cycle (portable: 4 lanes, 8 a ns). bench/search.py
prints it beside the measured cost and warns when the measured is several times more: both
builds of a comparison can be on the same slow path (issue 36: subnormal weights, 20 times
the estimate), a ratio between them cannot tell.
"""

from __future__ import annotations

import os

from engine.errors import PalaisError

from . import _value

KERNEL_ENV = "PALAIS_KERNEL"
AUTO = ("", "auto")


def _from_environment() -> str:
    """Follow PALAIS_KERNEL; returns why it cannot be followed ("" if it was)."""
    wanted = os.environ.get(KERNEL_ENV, "").strip()
    if wanted in AUTO:
        return ""
    if wanted not in _value.KERNEL_NAMES:
        return (f"{KERNEL_ENV}={wanted[:40]!r} is not a value kernel: use auto, "
                f"{' or '.join(_value.KERNEL_NAMES)}")
    if wanted not in _value.available_kernels():
        return (f"{KERNEL_ENV}={wanted}: not available on this build or processor "
                f"(available: {', '.join(_value.available_kernels())})")
    _value.set_kernel(wanted)
    return ""


_ERROR = _from_environment()


def kernel_name() -> str:
    """The kernel in use: "avx2+fma" or "portable"; PalaisError if PALAIS_KERNEL is unusable."""
    if _ERROR:
        raise PalaisError(_ERROR)
    return _value.kernel_name()


def kernel_report() -> str:
    """Two lines for --version: the kernel in use, or why PALAIS_KERNEL is refused; and how
    searches set flush-to-zero on this build (search/fp_mode.h), or that they cannot."""
    control = _value.floating_point_control() or "none on this target (subnormals stay slow)"
    try:
        kernel = f"value kernel: {kernel_name()}"
    except PalaisError as exc:
        kernel = f"value kernel: error: {exc}"
    return f"{kernel}\nflush-to-zero: {control}"


NOMINAL_MADDS_PER_NS = {"avx2+fma": 16.0, "portable": 8.0}
SLOW_PATH_RATIO = 4.0           # measured / estimate at or past which bench/search.py warns


def arithmetic_estimate_ns(madds: int, kernel: str | None = None) -> float:
    """What `madds` multiply-adds should take on `kernel` (default: the kernel in use), in ns."""
    return madds / NOMINAL_MADDS_PER_NS[kernel or kernel_name()]
