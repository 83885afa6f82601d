"""The PRI client against real and broken engines, and the compliance check."""

import sys
from pathlib import Path

import pytest

from protocol.client import (EngineClient, EngineDied, EngineTimeout, InvalidOutput, ProtocolViolation,
                             parse_info)
from protocol.commands import Go, PositionStart
from protocol.compliance import Compliance

from processes import deaf_engine_cmd, left_running, pid_file, pids  # noqa: F401 (a fixture)

OUR_ENGINE = [sys.executable, "-m", "protocol.cli"]
SILENT = [sys.executable, str(Path(__file__).parent / "data" / "silent_engine.py")]


def test_parse_info_reads_lists_and_the_rest_of_the_line():
    info = parse_info("info iterations 900 nodes 12000 multipv 2 winprob 0.6 0.4 "
                      "score 40.5 38.0 time 17 seldepth 9 pv gate2 MINT-KING end")
    assert info.iterations == 900 and info.multipv == 2 and info.time_ms == 17 and info.nodes == 12000
    assert info.winprob == (0.6, 0.4) and info.score == (40.5, 38.0)
    assert info.pv == "gate2 MINT-KING end" and info.other == (("seldepth", "9"),)
    assert parse_info("info string error: x y").string == "error: x y"
    assert parse_info("info time 250.4").time_ms == 250            # another engine's decimal time
    assert info.node_visits == 12000                               # an older engine's `nodes`
    both = parse_info("info iterations 9 visits 70 nodes 70")
    assert (both.visits, both.nodes, both.node_visits) == (70, 70, 70)
    assert parse_info("info visits 5").node_visits == 5
    for bad in ("bestmove a1", "info iterations many", "info time nan"):
        with pytest.raises(ProtocolViolation):
            parse_info(bad)


def test_an_info_record_is_written_and_read_back_by_the_same_code():
    from protocol.info import Info
    for info in (Info(iterations=900, nodes=12000, nps=48000, time_ms=250, multipv=1, winprob=(0.6, 0.4),
                      score=(40.5, 38.0), pv="gate2 MINT-KING end"),
                 Info(iterations=3, nodes=9, time_ms=0), Info(string="error: x y"), Info(pv="")):
        line = info.to_line()
        assert parse_info(line) == info, line
    assert Info(iterations=900, nodes=12000, nps=48000, time_ms=250, multipv=1, winprob=(0.6, 0.4),
                score=(40.5, 38.0), pv="MINT").to_line() == (
        "info iterations 900 nodes 12000 nps 48000 time 250 multipv 1 winprob 0.600 0.400 score 40.5 38.0 pv MINT")


@pytest.mark.slow
def test_the_client_drives_our_engine():
    with EngineClient(OUR_ENGINE, read_timeout=30) as client:
        info = client.handshake()
        assert info.name.startswith("palais-engine") and "Hash" in info.options
        client.set_option("Seed", 4)
        client.position(PositionStart(players=2, seed=9))
        answer = client.go(Go(iterations=800, multipv=2), timeout=60)
        assert answer.bestmove and not answer.errors
        ranks = [i.multipv for i in answer.infos if i.multipv is not None]
        assert ranks[-2:] == [1, 2] and len(answer.infos[-1].winprob) == 2
        assert client.is_ready() == []
        client.position(PositionStart(players=2, seed=9))
        search = client.search(Go(infinite=True), timeout=60)      # a handle: infos as they come
        first = next(iter(search))
        assert first.iterations is not None and first.node_visits is not None and search.answer is None
        search.stop()                                              # an infinite search ends on stop
        answer = search.wait()
        assert answer is search.answer and answer.bestmove and answer.infos[0] is first
        search.stop()                                              # after the answer: nothing sent
        assert client.is_ready() == []


@pytest.mark.slow
def test_a_silent_engine_times_out_and_a_dead_one_is_reported():
    with EngineClient(SILENT, read_timeout=0.3) as client:
        client.handshake()
        with pytest.raises(EngineTimeout):
            client.is_ready()
        client.send("die")
        with pytest.raises(EngineDied):
            client.read_line(5)
        with pytest.raises(EngineDied):
            client.send("isready")


def test_a_missing_engine_command_is_a_clear_error():
    with pytest.raises(EngineDied, match="cannot start"):
        EngineClient(["/nonexistent/engine"]).start()


@pytest.mark.slow
def test_our_engine_passes_the_compliance_check():
    lines = []
    assert Compliance(OUR_ENGINE, timeout=30, out=lines.append).run(), lines
    assert lines[-1] == "12 passed, 0 failed"
    assert any(l.startswith("PASS stop during infinite") for l in lines)


@pytest.mark.slow
def test_the_compliance_check_fails_a_silent_engine():
    lines = []
    assert not Compliance(SILENT, timeout=0.3, out=lines.append).run()
    assert lines[0].startswith("PASS handshake")
    assert any(l.startswith("FAIL isready") for l in lines)
    assert any(l.startswith("FAIL malformed input") for l in lines)


@pytest.mark.slow
def test_a_started_client_entered_with_with_keeps_its_one_process(pid_file):
    client = EngineClient(deaf_engine_cmd(pid_file)).start()
    first = client.process
    with client as same:
        assert same is client and same.process is first
        same.handshake()
    assert first.returncode is not None
    assert len(pids(pid_file)) == 2 and left_running(pid_file) == []
    client.close()                                        # closing again does nothing


# ---------------------------------------------------------------------- garbage from an engine
def test_each_line_is_decoded_by_the_client_and_garbage_is_named():
    from protocol.client import decode_line
    assert decode_line(b"readyok\n") == "readyok" and decode_line(b"readyok\r\n") == "readyok"
    assert decode_line("info string café\tok\n".encode()) == "info string café\tok"
    for raw, why in [(b"info string \xff\xfe\n", "not UTF-8 (byte 13)"), (b"bestmove \x00\n", "a NUL byte"),
                     (b"info \x1b[31m\n", "a control character (0x1b)"), (b"read\ryok\n", "(0x0d)")]:
        garbage = decode_line(raw)
        assert not isinstance(garbage, str) and why in garbage.why


def writer(*chunks: str) -> list:
    """An engine that writes `chunks` (Python expressions giving bytes), then waits for the
    end of its input."""
    code = ("import sys\n" + "".join(f"sys.stdout.buffer.write({c}); sys.stdout.buffer.flush()\n" for c in chunks)
            + "sys.stdin.read()\n")
    return [sys.executable, "-c", code]


@pytest.mark.slow
@pytest.mark.parametrize("garbage,why", [
    (r"b'\xff\xfe\xfd\n'", "a line that is not UTF-8"),
    (r"b'bestmove a1\x00\n'", "a line holding a NUL byte"),
    (r"b'info string ' + b'x' * (1 << 21) + b'\n'", "a line longer than 65536 bytes"),
])
def test_garbage_is_invalid_output_at_once_and_the_reader_goes_on(garbage, why):
    with EngineClient(writer(garbage, r"b'readyok\n'"), read_timeout=30) as client:
        with pytest.raises(InvalidOutput, match=f"^invalid output: {why}"):
            client.read_line()                      # at once, not after the 30 s
        assert client.read_line() == "readyok"      # the reader thread survived the garbage


@pytest.mark.slow
@pytest.mark.parametrize("reply,call", [
    (r"b'thinking hard\n'", lambda client: client.read_bestmove(30)),
    (r"b'ok, ready\n'", lambda client: client.is_ready(30)),
    (r"b'hello there\n'", lambda client: client.handshake(30)),
])
def test_a_line_that_is_not_pri_where_an_answer_is_due_is_invalid_output(reply, call):
    with EngineClient(writer(reply), read_timeout=30) as client:
        with pytest.raises(InvalidOutput, match="^invalid output: a line that is not PRI"):
            call(client)
