"""The docs' tables that restate a declaration, written from that declaration, and the docs'
lists that must name every declared thing, checked against it (issue 41: each concept declared
once, everything else derived or checked).

Written here (between `<!-- generated: NAME ... -->` and `<!-- end of generated NAME -->`
in the doc; never edited by hand):

    docs/protocol.md  pri-options    the options of palais-engine (protocol/engine.py OPTIONS,
                                     the search knobs' among them from search/params.py KNOBS)
    docs/search.md    algorithms     the algorithms (search/algorithms.py REGISTRY, their help)
    docs/play.md      rule-options   the rule options (engine/options.py OPTIONS)

and every handshake line quoted in a doc (`< option name X type ...`) as the engine writes it.

Checked only (each row is prose a person writes; the check says which name lacks a row, or
which row names nothing declared):

    docs/protocol.md  the GUI-to-engine table has a row per command word (protocol PARSERS)
    docs/search.md    the parameter table has a row per search knob (KNOBS)

`python tests/doc_tables.py` prints what is stale or missing (exit 1 if anything);
`python tests/doc_tables.py --regenerate` rewrites the generated parts. tests/test_doc_tables.py
fails while anything is stale, as tests/transcript.py does for the PRI transcripts.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
BEGIN = "<!-- generated: {name} (from {source}; python tests/doc_tables.py --regenerate writes it) -->"
END = "<!-- end of generated {name} -->"


def cell(text) -> str:
    """Text that stays one cell of a Markdown table."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def code(text) -> str:
    return f"`{text}`"


# ----------------------------------------------------------------------------- the tables

def pri_options() -> str:
    from protocol.engine import EMPTY, OPTIONS, SPIN_MAX
    rows = ["| option | type | default | search parameter | meaning |", "|---|---|---|---|---|"]
    for spec in OPTIONS:
        knob = spec.knob
        if spec.type == "combo":
            kind = "combo " + " ".join(code(c) for c in spec.choices)
        elif spec.type == "spin":
            high = "2^63-1" if spec.high == SPIN_MAX else spec.high
            kind = f"spin {spec.low}..{high}"
            if knob is not None and knob.words:
                kind += ", or " + ", ".join(code(word) for word, _ in knob.words)
        elif spec.type == "string" and knob is not None and knob.kind is float:
            kind = f"string (a number {knob.range_text()})"
        elif spec.type == "string":
            kind = "string (a file)"
        else:
            kind = spec.type
        default = spec.default
        if isinstance(default, bool):
            default = str(default).lower()
        if isinstance(default, str) and not (knob is not None and knob.kind is float):
            default = code(EMPTY if default == "" else default)
        parameter = code(knob.name) if knob is not None else "(the protocol's own)"
        rows.append(f"| {code(spec.name)} | {cell(kind)} | {cell(default)} | {parameter} | {cell(spec.help)} |")
    return "\n".join(rows)


def algorithms() -> str:
    from search.algorithms import REGISTRY
    rows = ["| name | searches | what it is |", "|---|---|---|"]
    for name, registered in REGISTRY.items():
        sees = "the true state (no seat of `palais play` or the page)" if registered.sees_hidden \
            else "the seat's own view"
        rows.append(f"| {code(name)} | {sees} | {cell(registered.help)} |")
    return "\n".join(rows)


def rule_options() -> str:
    from engine.options import OPTIONS, value_text
    rows = ["| option | default | values | meaning |", "|---|---|---|---|"]
    for spec in OPTIONS:
        values = f"{spec.range[0]}..{spec.range[1]}" if spec.range else "true, false"
        rows.append(f"| {code(spec.name)} | {value_text(spec.default)} | {values} | {cell(spec.help)} |")
    return "\n".join(rows)


# (doc, block name, what it is written from, the function writing it)
BLOCKS = (
    ("protocol.md", "pri-options", "protocol/engine.py OPTIONS and search/params.py KNOBS", pri_options),
    ("search.md", "algorithms", "search/algorithms.py REGISTRY", algorithms),
    ("play.md", "rule-options", "engine/options.py OPTIONS", rule_options),
)


def _block_span(text: str, name: str):
    """(start, end) of the text between a block's markers, or None when it has none."""
    begin = re.search(r"<!-- generated: " + re.escape(name) + r" \(.*?\) -->\n", text)
    end = text.find(END.format(name=name))
    if begin is None or end < begin.end():
        return None
    return begin.end(), end


def option_lines(text: str) -> str:
    """`text` with every quoted handshake line `< option name X type ...` as the engine writes it."""
    from protocol.engine import OPTION_BY_NAME

    def current(match):
        spec = OPTION_BY_NAME.get(match.group(2).lower())
        return match.group(1) + (spec.line() if spec else match.group(0)[len(match.group(1)):])
    return re.sub(r"^(< )(?:option name (.+?) type .*)$", current, text, flags=re.M)


def written(doc: str, text: str) -> str:
    """`doc`'s text with its generated parts as the declarations say today."""
    for name_of_doc, name, _source, make in BLOCKS:
        if name_of_doc != doc:
            continue
        span = _block_span(text, name)
        if span is None:
            raise ValueError(f"docs/{doc} has no generated block {name!r} (its markers are missing)")
        text = text[:span[0]] + make() + "\n" + text[span[1]:]
    return option_lines(text)


def documents() -> list:
    return sorted({doc for doc, *_ in BLOCKS} | {p.name for p in DOCS.glob("*.md")})


# ----------------------------------------------------------------------------- the checks

def table_names(text: str, heading: str) -> list:
    """The first-column names (`name` or `name ...`) of the first table after `heading`."""
    at = text.index(heading)
    names, in_table = [], False
    for line in text[at:].splitlines()[1:]:
        if line.startswith("|"):
            in_table = True
            match = re.match(r"\| `([^` ]+)", line)
            if match:
                names.append(match.group(1))
        elif in_table:
            break
    return names


def _compare(what: str, documented, declared) -> list:
    documented, declared = list(documented), list(declared)
    out = [f"{what}: no row for {name!r}" for name in declared if name not in documented]
    out += [f"{what}: a row for {name!r}, which is not declared" for name in documented
            if name not in declared]
    return out


def problems() -> list:
    """Every generated part that is stale and every checked list that misses a name, one line each."""
    from protocol.parser import PARSERS
    from search.params import KNOBS
    out = []
    for doc in documents():
        text = (DOCS / doc).read_text(encoding="utf-8")
        try:
            if written(doc, text) != text:
                out.append(f"docs/{doc}: generated parts are stale "
                           "(python tests/doc_tables.py --regenerate)")
        except ValueError as e:
            out.append(str(e))
    protocol = (DOCS / "protocol.md").read_text(encoding="utf-8")
    out += _compare("docs/protocol.md, GUI to engine", table_names(protocol, "## GUI to engine"), PARSERS)
    search = (DOCS / "search.md").read_text(encoding="utf-8")
    out += _compare("docs/search.md, Parameters", table_names(search, "## Parameters"),
                    (k.name for k in KNOBS))
    return out


def regenerate() -> list:
    changed = []
    for doc in documents():
        path = DOCS / doc
        text = path.read_text(encoding="utf-8")
        new = written(doc, text)
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed.append(f"rewrote docs/{doc}")
    return changed


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    if "--regenerate" in sys.argv:
        for line in regenerate():
            print(line)
    found = problems()
    for line in found:
        print(line)
    print("the docs agree with the declarations" if not found else f"{len(found)} problem(s)")
    sys.exit(1 if found else 0)
