"""The wheel a player installs: the compiled modules and the data files, and no sources.

.ci/run builds the wheel once (python -m build, then auditwheel repair) and names it in
PALAIS_WHEEL; without it this test builds one itself (slow; needs `pip install build`).
The cibuildwheel configuration in pyproject.toml is checked too: the builds it lists for each
platform are the ones the release promises (docs/install.md).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXTENSIONS = {"engine/_state", "engine/_features", "engine/_buildinfo", "engine/_microbench",
              "search/_ismcts", "search/_policy", "search/_prior", "search/_value"}
DATA = {"engine/data/reconstructed.toml", "search/data/value.npz", "search/data/policy.npz", "web/static/index.html",
        "web/static/app.js", "web/static/board.js", "web/static/style.css",
        *(f"{pkg}/locale/{lang}/LC_MESSAGES/palais.po" for pkg in ("play", "web")
          for lang in ("en", "fr", "zh"))}
PACKAGES = {"common", "jobs", "engine", "search", "protocol", "tournament", "play", "research", "web"}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    given = os.environ.get("PALAIS_WHEEL")
    if given:
        return Path(given)
    pytest.importorskip("build", reason="building a wheel needs `pip install build` "
                                        "(or name one in PALAIS_WHEEL)")
    out = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(ROOT)],
                   check=True, capture_output=True)
    return next(out.glob("*.whl"))


@pytest.mark.slow
def test_the_wheel_holds_the_compiled_modules_and_data_and_no_sources(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    compiled = {n.split(".")[0] for n in names if n.endswith((".so", ".pyd"))}
    assert compiled == EXTENSIONS
    assert DATA <= set(names), sorted(DATA - set(names))
    # every file the page loads, in every folder under web/static (board/, views/, the icon)
    page = {p.relative_to(ROOT).as_posix() for p in (ROOT / "web" / "static").rglob("*") if p.is_file()}
    assert {"web/static/board/motion.js", "web/static/views/ending.js", "web/static/favicon.svg"} <= page
    assert page <= set(names), sorted(page - set(names))
    sources = [n for n in names if n.endswith((".pyx", ".pxd", ".c", ".h", ".cpp"))]
    assert sources == []
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")
            and not n.split("/")[0].endswith(".libs")}
    assert tops == PACKAGES                      # no tests/, bench/, docs/ or build output
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    for script in ("palais = web.cli:main", "palais-engine = protocol.cli:main",
                   "palais-tournament = tournament.cli:main"):
        assert script in text


@pytest.mark.parametrize("platform, expected", [
    ("linux", {f"cp3{v}-{libc}_{arch}" for v in (11, 12, 13) for libc in ("manylinux", "musllinux")
               for arch in ("x86_64", "aarch64")}),
    ("macos", {f"cp3{v}-macosx_{arch}" for v in (11, 12, 13) for arch in ("x86_64", "arm64")}),
    ("windows", {f"cp3{v}-win_amd64" for v in (11, 12, 13)}),
])
def test_the_release_builds_every_platform_it_promises(platform, expected):
    tool = shutil.which("cibuildwheel") or pytest.skip("cibuildwheel is not installed "
                                                       "(pip install 'palais-engine[release]')")
    listed = subprocess.run([tool, "--print-build-identifiers", "--platform", platform],
                            capture_output=True, text=True, cwd=ROOT, check=True).stdout.split()
    assert set(listed) == expected
