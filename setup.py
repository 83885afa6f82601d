"""Build script for the Cython extensions; the package metadata lives in pyproject.toml.

Every `.pyx` file under engine/ and search/ becomes an extension module (a glob, so modules
added later are picked up). All Cython compiler directives are set here and only here; the
.pyx files carry none.

Two builds:
  fast (default)             boundscheck, wraparound, initializedcheck and nonecheck off,
                             cdivision on
  checked (PALAIS_CHECKED=1) boundscheck, wraparound and initializedcheck on, and the C macro
                             PALAIS_CHECKED=1 defined for every extension, so engine._buildinfo
                             (and any C code) can tell which build is loaded

Switching builds never reuses the other build's output: the generated C goes to
build/cython/<build>/, and BuildExt recompiles everything when the last build in its
build_temp was of the other kind (setuptools alone would judge an older .so up to date).

PALAIS_ANNOTATE=1 also writes Cython's annotated HTML (what `cython -a` shows) beside the
generated C in build/cython/<build>/.
"""

import os
import sys
from pathlib import Path

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
JOBS = os.cpu_count() or 1          # Cython's translation and the C compiles both use every core
CYTHON_PACKAGES = ("engine", "search")


def _env_flag(name: str) -> bool:
    """An on/off environment variable: unset, "" or "0" is off, "1" is on, anything else an error."""
    value = os.environ.get(name, "")
    if value not in ("", "0", "1"):
        sys.exit(f"setup.py: {name} must be 0 or 1, got {value!r}")
    return value == "1"


CHECKED = _env_flag("PALAIS_CHECKED")
ANNOTATE = _env_flag("PALAIS_ANNOTATE")
BUILD_KIND = "checked" if CHECKED else "fast"

COMPILER_DIRECTIVES = {
    "language_level": 3,
    "boundscheck": CHECKED,
    "wraparound": CHECKED,
    "initializedcheck": CHECKED,
    "cdivision": True,
    "nonecheck": False,
}

DEFINE_MACROS = [("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")]
if CHECKED:
    DEFINE_MACROS.append(("PALAIS_CHECKED", "1"))

EXTRA_COMPILE_ARGS = [] if sys.platform == "win32" else ["-O3"]


def find_extensions() -> list[Extension]:
    """One Extension per .pyx file under the Cython packages, named by its dotted path."""
    extensions = []
    for package in CYTHON_PACKAGES:
        for pyx in sorted((ROOT / package).rglob("*.pyx")):
            relative = pyx.relative_to(ROOT)
            extensions.append(Extension(
                ".".join(relative.with_suffix("").parts),
                [relative.as_posix()],
                # the generated C lives in build/cython/..., so headers beside the .pyx
                # need their folder on the include path
                include_dirs=[numpy.get_include(), relative.parent.as_posix()],
                define_macros=list(DEFINE_MACROS),
                extra_compile_args=list(EXTRA_COMPILE_ARGS),
            ))
    return extensions


class BuildExt(build_ext):
    """build_ext that recompiles every extension when the build kind (fast/checked) changed,
    and compiles the extensions in parallel, one job per core, unless told otherwise (-j)."""

    def finalize_options(self):
        super().finalize_options()
        if not self.parallel:
            self.parallel = JOBS

    def run(self):
        stamp = Path(self.build_temp) / "palais-build-kind"
        if not stamp.is_file() or stamp.read_text() != BUILD_KIND:
            self.force = True
        super().run()
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.write_text(BUILD_KIND)


# setuptools wants paths relative to the project folder; pip runs setup.py from there.
os.chdir(ROOT)
setup(
    ext_modules=cythonize(
        find_extensions(),
        compiler_directives=COMPILER_DIRECTIVES,
        build_dir=f"build/cython/{BUILD_KIND}",
        nthreads=JOBS if JOBS > 1 else 0,
        annotate=ANNOTATE,
        force=ANNOTATE,  # an up-to-date .c would otherwise be skipped, and no HTML written
    ),
    cmdclass={"build_ext": BuildExt},
)
