"""The `info` line of PRI as one typed record, written by the engine and read by the client
with the same code (as python-chess types UCI's info), so the two ends cannot drift apart.

    Info(iterations=900, visits=12000, time_ms=250, multipv=1, winprob=(0.6, 0.4), pv="MINT").to_line()
    -> "info iterations 900 visits 12000 nodes 12000 time 250 multipv 1 winprob 0.600 0.400 pv MINT"
    Info.parse("info string error: x")  -> Info(string="error: x")

Keys (docs/protocol.md, "Engine to GUI"), always written in this order: `iterations`,
`visits` (node visits: tree decisions walked, summed over iterations), `nodes` (the same
number under its old name, deprecated: written beside `visits` for a release so older
readers go on; "nodes" inside the search means tree nodes), `nps` (visits per second), `time` (ms), `multipv` (rank), `winprob` (one per seat), `score` (expected VP, one
per seat), `pv` (the rest of the line: the turn's tokens), `string` (the rest of the line:
free text). A key the record does not know is kept, as text, in `other`, so a newer
engine's line still reads; a value that is not what its key needs is a ProtocolError.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.errors import PalaisError

WHOLE_KEYS = ("iterations", "visits", "nodes", "nps", "time", "multipv")
LIST_KEYS = ("winprob", "score")
REST_KEYS = ("pv", "string")
FIELD = {"time": "time_ms"}                  # a key whose field is named otherwise


class InfoError(PalaisError):
    """An `info` line that does not read: the message says which key and value."""


@dataclass(frozen=True)
class Info:
    iterations: int | None = None
    visits: int | None = None                # node visits (the key `visits`)
    nodes: int | None = None                 # the same, under its deprecated key `nodes`
    nps: int | None = None
    time_ms: int | None = None
    multipv: int | None = None
    winprob: tuple = ()
    score: tuple = ()
    pv: str | None = None
    string: str | None = None
    other: tuple = ()                        # (key, value) pairs of keys this record does not know

    @property
    def node_visits(self) -> int | None:
        """The node visits, from `visits` or, from an older engine, `nodes`."""
        return self.visits if self.visits is not None else self.nodes

    def to_line(self) -> str:
        words = ["info"]
        for key in WHOLE_KEYS:
            value = getattr(self, FIELD.get(key, key))
            if value is not None:
                words += [key, str(int(value))]
        if self.winprob:
            words += ["winprob", *(f"{w:.3f}" for w in self.winprob)]
        if self.score:
            words += ["score", *(f"{s:.1f}" for s in self.score)]
        for key, value in self.other:
            words += [key, value]
        for key in REST_KEYS:
            value = getattr(self, key)
            if value is not None:
                return " ".join(words + [key, value]) if value else " ".join(words + [key])
        return " ".join(words)

    @classmethod
    def parse(cls, line: str) -> "Info":
        words = line.split()
        if not words or words[0] != "info":
            raise InfoError(f"not an info line: {line[:80]!r}")
        fields, other = {}, []
        i = 1
        while i < len(words):
            key = words[i]
            if key in REST_KEYS:
                fields[key] = " ".join(words[i + 1:])
                break
            if key in LIST_KEYS:
                values = []
                i += 1
                while i < len(words):
                    try:
                        values.append(float(words[i]))
                    except ValueError:
                        break
                    i += 1
                fields[key] = tuple(values)
                continue
            value = words[i + 1] if i + 1 < len(words) else ""
            if key in WHOLE_KEYS:
                fields[FIELD.get(key, key)] = _whole(key, value)
            else:
                other.append((key, value))
            i += 2
        return cls(**fields, other=tuple(other))


def _whole(key: str, text: str) -> int:
    """A whole number (a decimal one, "250.4", rounded: other engines write times so)."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if value != value or value in (float("inf"), float("-inf")) or len(text) > 40:
        raise InfoError(f"info {key}: expected a whole number, got {text[:40]!r}")
    return round(value)
