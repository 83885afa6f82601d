"""What an engine's command line needs to read, found without running any of it: the paths a
sandbox (protocol/sandbox.py) makes visible, read-only, so that a command line that works
unsandboxed works unchanged inside.

- The system's own folders (SYSTEM_PATHS), always; never /root, /home, /tmp, /srv, /var.
- The command's executable, found on PATH, every link on the way to the file, and the
  interpreter its `#!` line names (`#!/usr/bin/env python3` looked up on PATH), in turn.
- The installation prefix of each of them (the folder above its bin/), when that is not
  the system's: a virtual environment, and the Python installation its pyvenv.cfg names.
- What a Python prefix adds to the module path: the folders in its site-packages' .pth
  files, and the package folders of an editable install (setuptools' __editable__ finder).
- Every argument that names an existing file or folder (as is, or after `--option=`),
  relative ones against the working directory; never a folder in TOO_BROAD (/, a home).
Nothing here executes the engine or its interpreter: an untrusted command only ever runs
inside the sandbox.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
from pathlib import Path

SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
SYSTEM_PREFIXES = ("/", "/usr", "/usr/local")
TOO_BROAD = ("/", "/root", "/home", "/tmp", "/var", "/srv", "/mnt", "/media", "/run", "/proc", "/sys",
             os.path.expanduser("~"))
"""Folders an argument may name that are never shown whole: `--root /` shows nothing more."""
MAX_DEPTH = 4                    # interpreters of interpreters followed at most this deep


def _which(name: str, path_env: str | None) -> Path | None:
    found = shutil.which(name, path=path_env)
    return Path(found).absolute() if found else None


def _links(path: Path) -> list:
    """`path` and every path on the way through its symbolic links to the real file."""
    seen = [path]
    for _ in range(40):
        if not path.is_symlink():
            break
        path = (path.parent / os.readlink(path)).absolute()
        seen.append(path)
    return seen


def _shebang(path: Path) -> list:
    """The words of a script's `#!` line, or []."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(256)
    except OSError:
        return []
    if not head.startswith(b"#!"):
        return []
    return head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()


def _prefix(executable: Path) -> Path | None:
    """The installation prefix of an executable in <prefix>/bin, unless it is the system's."""
    if executable.parent.name not in ("bin", "sbin", "Scripts"):
        return None
    prefix = executable.parent.parent
    return None if str(prefix) in SYSTEM_PREFIXES else prefix


def _venv_home(prefix: Path) -> Path | None:
    """The base interpreter's folder a virtual environment names (pyvenv.cfg's `home`)."""
    try:
        text = (prefix / "pyvenv.cfg").read_text()
    except OSError:
        return None
    match = re.search(r"^\s*home\s*=\s*(.+?)\s*$", text, re.MULTILINE)
    return Path(match.group(1)) if match else None


_MAPPING = re.compile(r"^(MAPPING|NAMESPACES)\s*(?::[^=]*)?=\s*(\{.*\})\s*$", re.MULTILINE)


def _site_paths(prefix: Path) -> list:
    """Folders a Python prefix's site-packages add to the module path (.pth lines naming a
    folder; an editable install's package folders)."""
    found = []
    for site in prefix.glob("lib*/python3*/site-packages"):
        for pth in site.glob("*.pth"):
            try:
                lines = pth.read_text(errors="replace").splitlines()
            except OSError:
                continue
            for line in lines:
                line = line.strip()
                if line and not line.startswith(("#", "import ", "import\t")):
                    candidate = Path(line) if os.path.isabs(line) else site / line
                    if candidate.is_dir():
                        found.append(candidate)
        for finder in site.glob("__editable__*finder.py"):
            try:
                text = finder.read_text(errors="replace")
            except OSError:
                continue
            for _name, literal in _MAPPING.findall(text):
                try:
                    mapping = ast.literal_eval(literal)
                except (ValueError, SyntaxError):
                    continue
                for value in mapping.values():
                    for item in value if isinstance(value, list) else [value]:
                        if isinstance(item, str) and os.path.isabs(item):
                            found.append(Path(item))
    return found


def _program_paths(executable: Path, path_env: str | None, depth: int = 0) -> list:
    """An executable, its links, its prefixes, and its interpreter's, in turn."""
    paths = []
    for link in _links(executable):
        paths.append(link)
        prefix = _prefix(link)
        if prefix is not None:
            paths.append(prefix)
            paths += _site_paths(prefix)
            home = _venv_home(prefix)
            if home is not None:
                base = _prefix(home / "python") or home
                paths.append(base)
                paths += _site_paths(base)
    words = _shebang(executable)
    if words and depth < MAX_DEPTH:
        interpreter = Path(words[0])
        if interpreter.name == "env" and len(words) > 1:
            found = _which(next((w for w in words[1:] if not w.startswith("-")), ""), path_env)
            interpreter = found or interpreter
        paths += _program_paths(interpreter, path_env, depth + 1)
    return paths


def _argument_paths(argument: str, cwd: Path) -> list:
    candidates = [argument]
    if argument.startswith("-") and "=" in argument:
        candidates.append(argument.split("=", 1)[1])
    found = []
    for text in candidates:
        if not text or text.startswith("-") or "\0" in text:
            continue
        path = Path(text) if os.path.isabs(text) else cwd / text
        try:
            if path.exists() and os.path.abspath(path) not in TOO_BROAD:
                found.append(Path(os.path.abspath(path)))
        except OSError:
            pass
    return found


def needed_paths(command, cwd: str | os.PathLike | None = None, path_env: str | None = None,
                 python_path: str | None = None) -> list:
    """The paths `command` (a list: program and arguments) needs to read, absolute, each once,
    the system's first. `path_env` is the PATH the program is looked up on; `python_path` a
    PYTHONPATH passed to it."""
    cwd = Path(cwd or os.getcwd())
    paths = [Path(p) for p in SYSTEM_PATHS if os.path.lexists(p)]
    program = command[0]
    executable = (Path(program) if os.path.isabs(program) else cwd / program) if "/" in program \
        else _which(program, path_env)
    if executable is not None:
        paths += _program_paths(Path(os.path.abspath(executable)), path_env)
    for argument in command[1:]:
        paths += _argument_paths(argument, cwd)
    for item in (python_path or "").split(os.pathsep):
        if item and os.path.isabs(item) and os.path.exists(item):
            paths.append(Path(item))
    unique = []
    for path in paths:
        if path not in unique and os.path.lexists(path):
            unique.append(path)
    return unique
