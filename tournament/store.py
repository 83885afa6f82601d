"""Where a run keeps its progress: a folder with the run's settings, one line per finished
game, and every game record. Saved after every game, so `--resume` continues without
replaying finished games; a line cut short by a crash is ignored on resume.

    <out>/run.json            the settings (engines, players, deals, schedule, time control)
    <out>/draw-secret         the run's draw secret in hex (mode 0600; never sent to an engine):
                              it keys every deal's card draws, so --resume replays alike
    <out>/games.jsonl         one JSON object per finished game (GameResult without the record)
    <out>/records/game-NNNNN.txt   the game record of game NNNNN (docs/notation.md)
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from engine.atomic_write import write_text_atomic
from engine.chance import new_secret, secret_from_hex
from engine.errors import PalaisError


class StoreError(PalaisError):
    pass


class RunStore:
    def __init__(self, folder):
        self.folder = Path(folder)
        self.games_path = self.folder / "games.jsonl"
        self.settings_path = self.folder / "run.json"
        self.records = self.folder / "records"
        self.secret_path = self.folder / "draw-secret"

    def create(self, settings: dict, resume: bool) -> list:
        """Start or resume a run; returns the games already finished."""
        if self.settings_path.exists():
            old = json.loads(self.settings_path.read_text())
            if not resume:
                raise StoreError(f"{self.folder} holds a run already: pass --resume to continue it, "
                                 f"or choose another --out")
            if old != settings:
                changed = sorted(k for k in set(old) | set(settings) if old.get(k) != settings.get(k))
                raise StoreError(f"--resume: the settings differ from the saved run's ({', '.join(changed)})")
            return self.load()
        if resume:
            raise StoreError(f"--resume: no run to resume in {self.folder}")
        try:
            self.records.mkdir(parents=True, exist_ok=True)
            write_text_atomic(self.settings_path, json.dumps(settings, indent=2, sort_keys=True))
        except OSError as exc:
            raise _cannot_write(exc) from None
        return []

    def load(self) -> list:
        games = []
        if self.games_path.exists():
            for line in self.games_path.read_text().splitlines():
                try:
                    games.append(json.loads(line))
                except json.JSONDecodeError:
                    continue            # a line cut short by a crash: that game is replayed
        return games

    def save(self, result) -> dict:
        """Write the record, then append the game's line (flushed to disk)."""
        data = result.to_dict()
        record = data.pop("record")
        path = self.records / f"game-{result.index:05d}.txt"
        try:
            write_text_atomic(path, record)
            with open(self.games_path, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(data, sort_keys=True) + "\n")
                handle.flush()
                os.fsync(handle.fileno())
        except OSError as exc:
            raise _cannot_write(exc) from None
        return data


    def draw_secret(self) -> bytes:
        """The run's draw secret: read from the folder, or made there (readable by its owner
        only) the first time; a run from before draw secrets gets one for its new games."""
        try:
            return secret_from_hex(self.secret_path.read_text(encoding="ascii"), str(self.secret_path))
        except FileNotFoundError:
            pass
        except (OSError, UnicodeDecodeError) as exc:
            raise StoreError(f"{self.secret_path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
        secret = new_secret()
        try:
            fd = os.open(self.secret_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="ascii") as handle:
                handle.write(secret.hex() + "\n")
                handle.flush()
                os.fsync(handle.fileno())
        except OSError as exc:
            raise _cannot_write(exc) from None
        return secret


def _cannot_write(exc: OSError) -> StoreError:
    return StoreError(f"{exc.filename or 'the run folder'}: cannot write: {exc.strerror or exc}")
