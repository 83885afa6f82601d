"""The docs' tables agree with the declarations they restate (tests/doc_tables.py): the generated
parts are as `python tests/doc_tables.py --regenerate` writes them, and the hand-written lists
name every declared command and search knob."""

from __future__ import annotations

import doc_tables
from protocol.engine import OPTION_BY_NAME
from search.algorithms import REGISTRY


def test_the_docs_agree_with_the_declarations():
    assert doc_tables.problems() == []


def test_a_generated_block_is_rewritten_from_its_declaration():
    text = (doc_tables.DOCS / "search.md").read_text(encoding="utf-8")
    start, end = doc_tables._block_span(text, "algorithms")
    stale = text[:start] + "| `ismcts` | the seat's own view | an old description |\n" + text[end:]
    assert doc_tables.written("search.md", stale) == text
    for name, registered in REGISTRY.items():
        assert f"| `{name}` |" in text[start:end] and doc_tables.cell(registered.help) in text[start:end]


def test_a_quoted_handshake_line_is_written_as_the_engine_writes_it():
    old = "< option name Algorithm type combo default ismcts var ismcts var random\n"
    assert doc_tables.option_lines(old) == "< " + OPTION_BY_NAME["algorithm"].line() + "\n"


def test_a_missing_block_is_an_error_naming_it():
    try:
        doc_tables.written("play.md", "no markers here\n")
    except ValueError as e:
        assert "rule-options" in str(e)
    else:
        raise AssertionError("a doc without its block's markers was accepted")


def test_a_checked_table_names_what_lacks_a_row_and_what_is_not_declared():
    text = "## GUI to engine\n\n| command | meaning |\n|---|---|\n| `pri` | x |\n| `ping` | y |\n\nafter\n"
    names = doc_tables.table_names(text, "## GUI to engine")
    assert names == ["pri", "ping"]
    assert doc_tables._compare("t", names, ["pri", "isready"]) == [
        "t: no row for 'isready'", "t: a row for 'ping', which is not declared"]
