"""A table that restarts: the line splitter finds HELLO behind garbage or half a line,
and the host re-sends its CFG settings every time the table restarted."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from homeworlds.link import ConfigReported, LinkDown, LinkState, LinkUp
from homeworlds.sim import SimulatedMcu, VirtualTable, make_registry
from homeworlds.table.layout import builtin_layout
from tablefw import protocol as p
from tests.sim.linkbench import LinkBench

HELLO = p.Hello("tablefw-1.0", 1, 56, 4, 2)


def decode(data: bytes) -> tuple[list, p.Decoder]:
    decoder = p.Decoder(accept=p.FROM_MCU)
    return [m for m in decoder.feed(data) if not isinstance(m, p.SequenceGap)], decoder


def test_hello_glued_to_half_a_zone_line_is_found():
    half = p.encode(p.ZoneState(3, ["E004015000000011"]), seq=812)[:-9]  # cut before its CRC
    assert half[-1:].isdigit()  # the half line ends in digits, like the HELLO's seq
    messages, decoder = decode(half + p.encode(HELLO, seq=0))
    assert messages == [HELLO] and messages[0].seq == 0
    assert decoder.counts["resynced"] == 1
    assert decoder.counts["bad_crc"] + decoder.counts["bad_syntax"] == 1  # the half line


def test_hello_behind_binary_garbage_is_found():
    messages, decoder = decode(b"\xff\x00\xfe\x93 junk 77 " + p.encode(HELLO, seq=0))
    assert messages == [HELLO]
    assert decoder.counts["non_ascii"] == 1


def test_hello_behind_an_overlong_run_of_garbage_is_found():
    decoder = p.Decoder(accept=p.FROM_MCU)
    out = decoder.feed(b"x" * 700)  # no newline yet: more than a line's worth
    out += decoder.feed(b"y" * 300 + p.encode(HELLO, seq=0) + p.encode(p.Pong(5), seq=1))
    assert out == [HELLO, p.Pong(5)]
    assert decoder.counts["overlong"] == 1


def test_hello_behind_overlong_garbage_in_the_same_read_is_found():
    messages, decoder = decode(b"z" * 600 + p.encode(HELLO, seq=0))
    assert messages == [HELLO] and decoder.counts["overlong"] == 1


def test_a_corrupted_line_is_not_resynced_into_something_else():
    line = p.encode(p.ZoneState(3, ["E004015000000011"]), seq=12)
    bad = line.replace(b"12 ZONE", b"13 ZONE")
    messages, decoder = decode(bad)
    assert messages == [] and decoder.counts["resynced"] == 0 and decoder.counts["bad_crc"] == 1


@settings(max_examples=200, deadline=None)
@example(garbage=b" HELLO ", seq=0)  # the type word itself in the garbage
@example(garbage=b"7 HELLO tablefw 1 2 3 4 *", seq=12)
@given(garbage=st.binary(max_size=300).filter(lambda b: b"\n" not in b),
       seq=st.integers(0, 65535))
def test_any_garbage_before_a_line_leaves_the_line_readable(garbage, seq):
    message = p.Hello("tablefw-1.0", 1, 116, 8, 4)
    messages, _ = decode(garbage + p.encode(message, seq=seq))
    assert messages == [message]
    assert messages[0].seq == seq


def test_the_mcu_finds_a_host_line_behind_garbage_too():
    decoder = p.Decoder(accept=p.FROM_HOST)
    assert decoder.feed(b"\x00\x00garb" + p.encode(p.Sync(), seq=4)) == [p.Sync()]


# ---------------------------------------------------------------- the link, in-process


def game_bench() -> LinkBench:
    layout = builtin_layout("standard-2p")
    table = VirtualTable(layout, make_registry(layout))
    bench = LinkBench(SimulatedMcu(table), expected_zones=layout.zone_count)
    bench.link.configure(debounce_off=5, hb_ms=400)
    bench.ready()
    bench.until(lambda: bench.mcu.scanner.settings.debounce_off == 5)
    return bench


def cfg_lines(bench: LinkBench) -> list:
    decoder = p.Decoder(accept=p.FROM_HOST)
    return [m for m in decoder.feed(b"".join(bench.port.written)) if isinstance(m, p.Config)]


def play_a_little(bench: LinkBench) -> None:
    table = bench.mcu.table
    uid = table.tags_on(44)[0]
    table.move(uid, 9)
    bench.poll(200)


def test_cfg_is_sent_once_the_table_is_up():
    bench = game_bench()
    assert cfg_lines(bench) == [p.Config({"debounce_off": 5, "hb_ms": 400})]
    assert bench.mcu.scanner.settings.hb_ms == 400


def test_a_table_reset_mid_game_gets_its_cfg_again():
    bench = game_bench()
    play_a_little(bench)
    bench.mcu.reset()
    assert bench.mcu.scanner.settings.debounce_off != 5  # the firmware's default again
    bench.until(lambda: bench.mcu.scanner.settings.debounce_off == 5)
    assert bench.mcu.scanner.settings.hb_ms == 400
    assert len(cfg_lines(bench)) == 2
    downs = [e for e in bench.events if type(e) is LinkDown]
    assert any("restarted" in e.reason for e in downs)
    assert bench.link.stats.mcu_restarts == 1
    bench.until(lambda: bench.link.state is LinkState.READY)
    assert bench.of_type(ConfigReported)[-1].settings["debounce_off"] == 5


def test_a_hello_glued_to_half_a_line_is_still_a_restart_with_cfg_again():
    bench = game_bench()
    play_a_little(bench)
    ups = len(bench.of_type(LinkUp))
    bench.mcu.reset(mid_line=True)
    bench.until(lambda: bench.mcu.scanner.settings.debounce_off == 5, limit=400)
    assert bench.link.stats.mcu_restarts == 1
    assert len(bench.of_type(LinkUp)) == ups + 1
    assert len(cfg_lines(bench)) == 2
    assert bench.link._decoder.counts["resynced"] >= 1


def test_two_resets_two_resends():
    bench = game_bench()
    for count in (2, 3):
        bench.mcu.reset(mid_line=count == 3)
        bench.until(lambda: bench.mcu.scanner.settings.debounce_off == 5, limit=400)
        assert len(cfg_lines(bench)) == count
