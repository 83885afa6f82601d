"""Golden transcripts of PRI sessions (tests/transcripts/*.pri, run by tests/transcript.py)."""

from pathlib import Path

import pytest

from transcript import FOLDER, read, run_commands

FILES = sorted(FOLDER.glob("*.pri"))


def test_there_are_transcripts():
    assert len(FILES) >= 3


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_transcript(path: Path):
    commands, expected = read(path)
    assert any(expected), f"{path} has no expected answers; run tests/transcript.py --regenerate"
    got = run_commands(commands)
    for (command, answers), want in zip(got, expected):
        assert answers == want, f"after '> {command}'"
