"""Where a run keeps its progress: a folder with the run's settings, one line per finished
game, and every game record. Saved after every game, so `--resume` continues without
replaying finished games. A last line cut short by a kill is dropped on resume and the file
rewritten without it (common/json_lines.py), so that game is played again and its new line
starts on a line of its own; a damaged line anywhere else is an error naming its number.

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

from common.atomic_write import write_text_atomic
from common.files import read_text_file
from common.json_lines import mend, read_json_lines
from engine.chance import new_secret, secret_from_hex
from engine.errors import PalaisError

MAX_SETTINGS_BYTES = 1 << 20        # run.json: the settings of a run, a few KiB


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
        if os.path.lexists(self.settings_path):
            if not resume:
                raise StoreError(f"{self.folder} holds a run already: pass --resume to continue it, "
                                 f"or choose another --out")
            old = self._saved_settings()
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

    def _saved_settings(self) -> dict:
        text = read_text_file(self.settings_path, "run's settings file", MAX_SETTINGS_BYTES, StoreError)
        try:
            settings = json.loads(text)
        except ValueError:
            settings = None
        if not isinstance(settings, dict):
            raise StoreError(f"{self.settings_path}: not the settings of a run (not a JSON object)")
        return settings

    def load(self) -> list:
        """The games finished so far. A last line a kill cut short is dropped, and the file
        rewritten without it (that game is played again)."""
        lines = read_json_lines(self.games_path, "a game line of this run", _game_line, error=StoreError)
        if lines is None:
            return []
        try:
            mend(self.games_path, lines)
        except OSError as exc:
            raise _cannot_write(exc) from None
        return lines.values

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
        if os.path.lexists(self.secret_path):
            text = read_text_file(self.secret_path, "run's draw secret", 1024, StoreError)
            return secret_from_hex(text, str(self.secret_path))
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


def _game_line(game, _number: int) -> dict:
    """A line of games.jsonl: a JSON object with the game's index (the runner's key)."""
    if not isinstance(game, dict) or type(game.get("index")) is not int or game["index"] < 0:
        raise ValueError("not a game line")
    return game


def _cannot_write(exc: OSError) -> StoreError:
    return StoreError(f"{exc.filename or 'the run folder'}: cannot write: {exc.strerror or exc}")
