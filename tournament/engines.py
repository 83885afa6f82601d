"""Engines as the runner knows them: a name, a command line and PRI options.

Parsed from the command line's `--engine name=new cmd="palais-engine" option.Processes=1`
(the value is split like a shell would split it), and checked before the first game and
before anything is written: a name must fit a game record's Names header and differ from
the others', and (for games on this machine) the command must exist.
"""

from __future__ import annotations

import shlex
import shutil
from dataclasses import dataclass, field

from engine.errors import NotationError, PalaisError
from engine.record import record_from_actions, write_record


class EngineSpecError(PalaisError):
    pass


@dataclass(frozen=True)
class EngineSpec:
    name: str
    cmd: tuple                          # the command and its arguments
    options: tuple = field(default=())  # (PRI option name, value) pairs, sent in order

    def to_dict(self) -> dict:
        return {"name": self.name, "cmd": list(self.cmd), "options": [list(o) for o in self.options]}

    @classmethod
    def from_dict(cls, data) -> "EngineSpec":
        return cls(data["name"], tuple(data["cmd"]), tuple(tuple(o) for o in data["options"]))


def parse_engine(text: str) -> EngineSpec:
    """`name=X cmd="..." option.Name=value ...` -> EngineSpec; errors name the bad item."""
    try:
        items = shlex.split(text)
    except ValueError as exc:
        raise EngineSpecError(f"--engine {text!r}: {exc}") from None
    name = cmd = None
    options = []
    for item in items:
        key, eq, value = item.partition("=")
        if not eq:
            raise EngineSpecError(f"--engine {text!r}: '{item}' is not key=value")
        if key == "name":
            name = value
        elif key == "cmd":
            try:
                cmd = tuple(shlex.split(value))
            except ValueError as exc:
                raise EngineSpecError(f"--engine {text!r}: cmd: {exc}") from None
        elif key.startswith("option."):
            if not key[7:]:
                raise EngineSpecError(f"--engine {text!r}: 'option.' needs an option name")
            options.append((key[7:], value))
        else:
            raise EngineSpecError(f"--engine {text!r}: unknown key '{key}' (name, cmd, option.<Name>)")
    if not name:
        raise EngineSpecError(f"--engine {text!r}: needs name=...")
    if not cmd:
        raise EngineSpecError(f"--engine {text!r}: needs cmd=...")
    try:
        check_name(name)
    except EngineSpecError as exc:
        raise EngineSpecError(f"--engine {text!r}: {exc}") from None
    return EngineSpec(name, cmd, tuple(options))


def check_name(name: str) -> None:
    """A name the game records can hold: the record writer's own rule, asked directly."""
    try:
        write_record(record_from_actions(2, [], seed=0, names=[name, name]))
    except NotationError as exc:
        raise EngineSpecError(str(exc)) from None


def check_engines(specs, local: bool = False) -> None:
    """Raise EngineSpecError unless every name is valid and different from the others, and
    (`local`: the engines will run on this machine) every command can be started here."""
    seen = set()
    for spec in specs:
        check_name(spec.name)
        if spec.name in seen:
            raise EngineSpecError(f"engine names must differ: {spec.name!r} is given twice")
        seen.add(spec.name)
        if local and shutil.which(spec.cmd[0]) is None:
            raise EngineSpecError(f"engine {spec.name!r}: command {spec.cmd[0]!r} not found "
                                  f"(or not executable)")
