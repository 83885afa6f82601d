"""The one way the project starts a PRI engine and makes it ready: the tournament, `palais
play` and `palais serve` all call `open_engine` (as python-chess's popen_uci starts a UCI
engine), so each gets the same sandbox, the same checks and the same errors.

    client = open_engine(["palais-engine"], options=[("Processes", "2")], sandbox=policy)

Steps: start the process (in the sandbox `sandbox` asks for: protocol/sandbox.py), `pri`
and read its identity and options, check each option asked for against what the engine
declared (its name, and a spin's range, a combo's choices, a check's true/false) before
anything is sent, set them, `newgame`, and `isready`. An option the user asked for that the
engine does not declare, whose value does not fit, or that the engine answers with an
`info string error` refuses the start (OptionRefused, naming it). Whatever fails on the way
ends the process before the error is raised.
"""

from __future__ import annotations

import subprocess

from .client import SAFETY_TIMEOUT_S, ClientError, EngineClient
from .commands import RENAMED_OPTIONS
from .sandbox import SandboxPolicy


class OptionRefused(ClientError):
    """An option asked for is not one the engine takes (the message names it and why)."""


def _declared(text: str) -> dict:
    """An option line's rest (`type spin default 1 min 1 max 64`) as {"type": ..., "min": ...,
    "var": [choices]}."""
    words = text.split()
    out = {"var": []}
    i = 0
    while i + 1 < len(words):
        key, value = words[i], words[i + 1]
        if key == "var":
            out["var"].append(value)
        elif key in ("type", "default", "min", "max"):
            out[key] = value
        i += 2
    return out


def declared_name(options: dict, name: str) -> str:
    """The name under which the engine (`options`: its handshake's declarations) takes the
    option `name`: itself, or its old or new name where PRI renamed it (RENAMED_OPTIONS), so
    `Threads` reaches a new engine and `Processes` an old one. OptionRefused if none."""
    by_lower = {declared.lower(): declared for declared in options}
    renamed = {**{old.lower(): new for old, new in RENAMED_OPTIONS.items()},
               **{new.lower(): old for old, new in RENAMED_OPTIONS.items()}}
    for candidate in (name, renamed.get(name.lower())):
        if candidate is not None and candidate.lower() in by_lower:
            return by_lower[candidate.lower()]
    offered = ", ".join(options) or "none"
    raise OptionRefused(f"option {name!r}: the engine has no such option (it has: {offered})")


def check_option(options: dict, name: str, value) -> str:
    """The name to send the option `name` under (declared_name), after checking that `value`
    fits the type the engine's handshake declares; OptionRefused names what does not. A
    spin's value that is not a whole number is left to the engine to judge (ours take words
    such as `Hash auto`)."""
    name = declared_name(options, name)
    declared = _declared(options[name])
    kind = declared.get("type")
    text = None if value is None else str(value)
    if kind == "button":
        return
    if text is None:
        raise OptionRefused(f"option {name!r}: needs a value ({kind})")
    if kind == "spin":
        try:
            number = int(text)
        except ValueError:
            return
        low, high = declared.get("min"), declared.get("max")
        if (low is not None and number < int(low)) or (high is not None and number > int(high)):
            raise OptionRefused(f"option {name!r}: {text} is outside {low}..{high}")
    elif kind == "check" and text.lower() not in ("true", "false"):
        raise OptionRefused(f"option {name!r}: {text!r} is not true or false")
    elif kind == "combo" and declared["var"] and text.lower() not in [v.lower() for v in declared["var"]]:
        raise OptionRefused(f"option {name!r}: {text!r} is not one of {', '.join(declared['var'])}")
    return name


def open_engine(command, options=(), *, sandbox: SandboxPolicy | None = None,
                read_timeout: float = SAFETY_TIMEOUT_S, stderr=subprocess.DEVNULL,
                new_game: bool = True) -> EngineClient:
    """A started, configured and ready engine (see the top of this file). `options` are
    (name, value) pairs, sent in order."""
    client = EngineClient(command, read_timeout=read_timeout, stderr=stderr, sandbox=sandbox)
    try:
        client.start()
        info = client.handshake()
        named = [(check_option(info.options, name, value), value) for name, value in options]
        for name, value in named:
            client.set_option(name, value)
        if new_game:
            client.new_game()
        errors = [line for line in client.is_ready() if line.startswith("info string error")]
        if errors:
            raise OptionRefused(f"refused its options: {errors[0]}")
    except BaseException:
        client.close()
        raise
    return client
