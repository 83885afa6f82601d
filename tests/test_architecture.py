"""The floors hold: no package imports from a floor above it (docs/architecture.md).

common <- engine, jobs <- search <- protocol <- tournament, play, research <- web. Every import of every
module under those packages is read from the source (Python files through ast, including
imports inside functions; Cython .pyx/.pxd files line by line, `cimport` included) and its
top-level package is compared with the importer's floor. Siblings on one floor (engine and
jobs; tournament, play and research) do not import each other either.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# The floor of each package, lowest first. A package may import from floors strictly below
# its own, and from itself.
FLOORS = {"common": 0, "engine": 1, "jobs": 1, "search": 2, "protocol": 3, "tournament": 4, "play": 4,
          "research": 4, "web": 5}

# A Cython import line: `from X import ...`, `from X cimport ...`, `import X`, `cimport X`.
CYTHON_IMPORT = re.compile(r"^\s*(?:from\s+(\.*[\w.]*)\s+c?import\b|c?import\s+([\w.]+))")


def _resolve(importer: str, module: str | None, level: int) -> str:
    """The absolute dotted name an import refers to (relative imports resolved)."""
    if level == 0:
        return module or ""
    package = importer.split(".")[:-level]
    return ".".join(package + ([module] if module else []))


def _python_imports(path: Path, importer: str) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append((node.lineno, _resolve(importer, node.module, node.level)))
    return found


def _cython_imports(path: Path, importer: str) -> list[tuple[int, str]]:
    found = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        match = CYTHON_IMPORT.match(line)
        if not match:
            continue
        if match.group(1) is not None:
            dotted = match.group(1)
            level = len(dotted) - len(dotted.lstrip("."))
            found.append((lineno, _resolve(importer, dotted.lstrip(".") or None, level)))
        else:
            found.append((lineno, match.group(2)))
    return found


def imports_of(path: Path, root: Path) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in one source file."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    importer = ".".join(parts)     # a package's __init__ resolves like a module inside it
    if path.suffix == ".py":
        return _python_imports(path, importer)
    return _cython_imports(path, importer)


def modules_of(package: str, root: Path) -> list[Path]:
    return sorted(p for suffix in ("*.py", "*.pyx", "*.pxd")
                  for p in (root / package).rglob(suffix) if "__pycache__" not in p.parts)


def floor_violations(package: str, root: Path = ROOT) -> list[str]:
    own = FLOORS[package]
    bad = []
    for path in modules_of(package, root):
        for lineno, name in imports_of(path, root):
            top = name.split(".")[0]
            if top in FLOORS and top != package and FLOORS[top] >= own:
                bad.append(f"{path.relative_to(root)}:{lineno} imports {name} "
                           f"({package} is floor {own}, {top} floor {FLOORS[top]})")
    return bad


@pytest.mark.parametrize("package", list(FLOORS))
def test_package_imports_only_from_floors_below(package):
    assert modules_of(package, ROOT), f"no modules found under {package}/"
    assert floor_violations(package) == []


def test_the_check_sees_every_kind_of_import(tmp_path):
    # A check that finds nothing must be able to find something: plant upward imports of each
    # kind (plain, inside a function, Cython cimport, relative, sibling) in a throwaway tree
    # laid out like the repository, beside imports that are allowed.
    files = {
        "engine/a.py": "import search.mcts\n",
        "engine/b.py": "def f():\n    from protocol import client\n",
        "engine/c.pyx": "from search._policy cimport heuristic_action\n",
        "engine/d.py": "from . import rng\nfrom .rng import Rng\nimport os\n",
        "search/e.py": "from engine.rng import Rng\nfrom ..play import hints\n",
        "tournament/f.py": "import engine.rng\nimport protocol.client\nimport play.game\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    assert [line.split(" ")[0] for line in floor_violations("engine", tmp_path)] == [
        "engine/a.py:1", "engine/b.py:2", "engine/c.pyx:1"]
    assert floor_violations("search", tmp_path) == [
        "search/e.py:2 imports play (search is floor 2, play floor 4)"]
    assert floor_violations("tournament", tmp_path) == [
        "tournament/f.py:3 imports play.game (tournament is floor 4, play floor 4)"]


# ---- the map is true ---------------------------------------------------------------------
# docs/architecture.md names every module in its tables ("| `pkg/mod.py` | ..."), and says
# which module each console command runs. A module it names must exist, every module of a
# package must be named, and every entry point in pyproject.toml must resolve.

MAP = ROOT / "docs" / "architecture.md"
MAP_ROW = re.compile(r"^\| (`[\w/.]+`(?:, `[\w/.]+`)*) \|", re.M)


def _mapped_modules() -> set[str]:
    names = set()
    for cell in MAP_ROW.findall(MAP.read_text(encoding="utf-8")):
        names.update(name.strip("`") for name in cell.split(", "))
    return names


def test_every_module_the_map_names_exists_and_every_module_is_named():
    named = {n for n in _mapped_modules() if n.split("/")[0] in FLOORS}
    assert named, "no module rows found in docs/architecture.md"
    missing = sorted(n for n in named if not (ROOT / n).exists())
    assert missing == [], f"docs/architecture.md names modules that do not exist: {missing}"
    present = {str(p.relative_to(ROOT)) for package in FLOORS for p in modules_of(package, ROOT)}
    unnamed = sorted(present - named)
    assert unnamed == [], f"modules missing from docs/architecture.md: {unnamed}"


def test_every_console_entry_point_exists_and_the_map_says_where_palais_lives():
    import importlib
    import tomllib
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert set(scripts) == {"palais", "palais-engine", "palais-tournament"}
    for name, target in scripts.items():
        module, _, function = target.partition(":")
        assert callable(getattr(importlib.import_module(module), function)), (name, target)
        path = module.replace(".", "/") + ".py"
        assert f"`{path}`" in MAP.read_text(encoding="utf-8"), f"{name}'s {path} is not on the map"
    text = MAP.read_text(encoding="utf-8")
    palais = scripts["palais"].partition(":")[0].replace(".", "/") + ".py"
    assert f"`palais` itself is\n`{palais}`" in text or f"`palais` itself is `{palais}`" in text


# ---- the floors and figures of the map are the code's -------------------------------------

FLOOR_ROW = re.compile(r"^\| `(\w+)` \| ([^|]*) \| [^|]* \|$", re.M)


def _drawn_floors() -> dict:
    """docs/architecture.md's floors table: package -> the packages it may import."""
    text = MAP.read_text(encoding="utf-8")
    section = text[text.index("## The floors"):text.index("## Modules")]
    return {package: set(re.findall(r"`(\w+)`", allowed)) & set(FLOORS)
            for package, allowed in FLOOR_ROW.findall(section)}


def test_the_floors_table_is_what_the_code_imports():
    drawn = _drawn_floors()
    assert set(drawn) == set(FLOORS), "every package has one row in the floors table"
    for package, allowed in drawn.items():
        above = sorted(p for p in allowed if FLOORS[p] >= FLOORS[package])
        assert above == [], f"the map lets {package} import from its floor or above: {above}"
        used = {name.split(".")[0] for path in modules_of(package, ROOT)
                for _line, name in imports_of(path, ROOT)} & set(FLOORS) - {package}
        assert used <= allowed, f"{package} imports {sorted(used - allowed)}, which the map does not draw"


def test_every_bench_script_is_on_the_map():
    text = MAP.read_text(encoding="utf-8")
    missing = [p.name for p in sorted((ROOT / "bench").glob("*.py")) if f"`bench/{p.name}`" not in text]
    assert missing == [], f"bench scripts missing from docs/architecture.md: {missing}"


def test_the_state_size_the_map_states_is_the_builds():
    from engine._state import GAME_STATE_BYTES
    text = MAP.read_text(encoding="utf-8")
    assert f"a plain C struct of {GAME_STATE_BYTES} bytes" in text
