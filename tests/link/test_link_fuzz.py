"""Arbitrary bytes on the wire never crash the link, and it recovers after them."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from homeworlds.link import LinkEvent, ZoneChanged
from tablefw import protocol as p

from .fakes import A, Bench

# Noise, plus fragments that look almost like lines.
NOISE = st.lists(
    st.one_of(
        st.binary(max_size=200),
        st.sampled_from([b"\n", b"\r\n", b" *", b"0 ZONE 1 ", b"HELLO", b"*FFFF\n", b"-"]),
        st.builds(lambda seq, body: p.frame(seq, body)[:-7] + b" *0000\n",
                  st.integers(0, 65535), st.sampled_from(["ZONE 0 -", "HELLO x 1 4 1 2"])),
    ),
    max_size=30,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chunks=NOISE)
def test_noise_never_crashes_and_valid_lines_still_get_through(chunks):
    bench = Bench()
    bench.connect()
    for chunk in chunks:
        bench.mcu.send_raw(chunk)
        events = bench.poll()
        assert all(isinstance(e, LinkEvent) for e in events)
    # A newline ends whatever half line the noise left; then the table speaks.
    bench.mcu.send_raw(b"\n")
    bench.mcu.announce()
    bench.exchange()
    assert bench.link.table_known
    bench.mcu.set_zone(3, [A])
    assert ZoneChanged(3, frozenset({A}), at=bench.clock()) in bench.exchange()
    stats = bench.link.stats
    assert stats.lines_ok >= 4
