"""Scan speed of the table as a player meets it, on the timing model.

The simulated MCU runs the firmware's scan core with the real PN5180 driver over
emulated chips (``SimulatedMcu(reader_model="pn5180")``): air time from ISO 15693,
SPI at 7 MHz, CircuitPython overhead per call as measured on CPython and scaled
(homeworlds.sim.scan_timing). A mid-game position is laid out (homes, a few
colonies, the rest of the pieces in the bank tray), then pieces are put down on
random system pads at random moments and the time until the firmware sends the
ZONE line that shows them is measured.

Figures: the round time (every system pad scanned once; a share of the bank tray
rides along each round), the bank tray's refresh, placement -> ZONE latency p50
and p95, and spurious ZONE lines (a piece reported gone although it never moved).
"""

from __future__ import annotations

import random
import statistics

from homeworlds.rules.pieces import PIECES
from homeworlds.sim import SimulatedMcu
from homeworlds.sim.scan_timing import CIRCUITPYTHON_FACTOR, FRAME_OVERHEAD_US
from homeworlds.sim.table import VirtualTable, make_registry
from homeworlds.table.layout import builtin_layout
from tablefw import protocol as p

LAYOUTS = ("standard-2p", "four-seat")
TRIALS = 60


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def mid_game(table, layout, rng):
    """Homes (two stars and a large ship each), four colonies of a star and one
    to three ships each; everything else stays in the bank."""
    pieces = list(PIECES)
    slots = list(layout.slots)
    used = set()
    for seat in layout.seats:
        slot = slots[seat.home_slot] if seat.home_slot is not None else slots[seat.index]
        used.add(slot.index)
        for _ in range(2):
            _put(table, rng.choice(pieces), slot.star_zone, rng)
        _put(table, rng.choice([q for q in pieces if q.size == 3]), slot.ship_zone(seat.index), rng)
    free = [s for s in slots if s.index not in used]
    for slot in rng.sample(free, 4):
        _put(table, rng.choice(pieces), slot.star_zone, rng)
        for _ in range(rng.randint(1, 3)):
            _put(table, rng.choice(pieces), slot.ship_zone(rng.randrange(len(layout.seats))), rng)


def _put(table, piece, zone, rng):
    for candidate in [piece] + list(PIECES):
        if table.bank_uids(candidate):
            uid = table.take_from_bank(candidate)
            table.place(uid, zone)
            return uid
    raise RuntimeError("bank empty")


def bench_layout(name, seed=7):
    layout = builtin_layout(name)
    rng = random.Random(seed)
    table = VirtualTable(layout, make_registry(layout, players=len(layout.seats)))
    mcu = SimulatedMcu(table, reader_model="pn5180", seed=seed)
    mid_game(table, layout, rng)
    mcu.settle()
    host = p.Decoder(accept=p.FROM_MCU)
    host.feed(mcu.read())
    rounds = []
    last_round = mcu.scanner.rounds
    pads = [zone for slot in layout.slots for zone in slot.zones]
    latencies = []
    removal = []
    spurious = 0
    bank_refresh = []
    bank_zone = layout.bank[0].zone if layout.bank else None
    bank_seen = None

    def run_until(condition, limit_ms=5000):
        nonlocal last_round, spurious, bank_seen
        end = mcu.clock() + limit_ms
        while mcu.clock() < end:
            mcu.step()
            if mcu.scanner.rounds != last_round:
                last_round = mcu.scanner.rounds
                rounds.append(mcu.scanner.round_ms)
            for message in host.feed(mcu.read()):
                if isinstance(message, p.ZoneState) and message.zone not in watched:
                    spurious += 1
                if isinstance(message, p.ZoneState) and condition(message):
                    return mcu.clock()
            if bank_zone is not None:
                count = mcu.scanner.scans
                del count
        return None

    watched = set()
    for _ in range(TRIALS):
        mcu.run_for(rng.randrange(50, 600))
        for message in host.feed(mcu.read()):
            if isinstance(message, p.ZoneState) and message.zone not in watched:
                spurious += 1
        zone = rng.choice(pads)
        piece = rng.choice([q for q in PIECES if table.bank_uids(q)])
        watched = {zone, layout.bank_zone(piece)} if layout.bank else {zone}
        uid = table.take_from_bank(piece)
        start = mcu.clock()
        table.place(uid, zone)
        seen = run_until(lambda m: m.zone == zone and uid in m.uids)
        latencies.append(seen - start if seen is not None else 5000)
        start = mcu.clock()
        table.to_bank(uid)
        gone = run_until(lambda m: m.zone == zone and uid not in m.uids)
        removal.append(gone - start if gone is not None else 5000)
        run_until(lambda m: False, 300)  # the bank compartment catches up
        watched = set()
    del bank_seen, bank_refresh
    slow_every = mcu.scanner.slow_every
    return {
        "round_ms_p50": statistics.median(rounds),
        "round_ms_p95": percentile(rounds, 0.95),
        "bank_refresh_ms_p50": statistics.median(rounds) * slow_every if layout.bank else 0,
        "placement_to_zone_ms_p50": statistics.median(latencies),
        "placement_to_zone_ms_p95": percentile(latencies, 0.95),
        "removal_to_zone_ms_p95": percentile(removal, 0.95),
        "spurious_zone_lines": spurious,
    }


def run():
    results = {"model": f"CircuitPython factor x{CIRCUITPYTHON_FACTOR}, {FRAME_OVERHEAD_US:.0f} us per SPI frame"}
    for name in LAYOUTS:
        for key, value in bench_layout(name).items():
            results[f"{name} {key}"] = value
    return results


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key}: {value}")
