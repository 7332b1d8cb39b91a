"""Scan speed of the table as a player meets it, on the timing model.

The simulated MCU runs the firmware's scan core with the real PN5180 driver over
emulated chips (``SimulatedMcu(reader_model="pn5180")``): air time from ISO 15693,
SPI at 7 MHz, CircuitPython overhead per SPI frame as measured on CPython and
scaled (homeworlds.sim.scan_timing), the read model's misses for ships on their
side and stacked bank pieces. A mid-game position is laid out (homes, four
colonies, the rest in the bank tray), then a piece is taken from the bank and put
on a random system pad at a random moment, trial after trial, and the time until
the firmware sends the ZONE line that shows it is measured (then it goes back).

Two tag sets: ``sim`` is the simulator's registry (UIDs numbered colour-size,
copy: pieces of one copy share their low bits, so two stars of a home collide in
the first slots - a hard case); ``reel`` is what a builder gets from one reel of
ICODE tags (consecutive serial numbers, stuck on the pieces in random order).

Figures: round time (every system pad scanned once; a share of the bank tray
rides along each round), the bank tray's refresh, placement -> ZONE latency p50
and p95, removal -> ZONE p95, and spurious ZONE lines (a zone reported changed
although nothing on it moved; read misses that outlasted the debounce).
"""

from __future__ import annotations

import random
import statistics
import sys

from homeworlds.rules import PIECES
from homeworlds.sim import SimulatedMcu, VirtualTable, make_registry
from homeworlds.sim.scan_timing import CIRCUITPYTHON_FACTOR, FRAME_OVERHEAD_US
from homeworlds.table.enroll import copies_for_players
from homeworlds.table.layout import builtin_layout
from homeworlds.table.registry import COPY_LETTERS, Registry, TagInfo
from tablefw import protocol as p

CASES = (("standard-2p", "sim"), ("standard-2p", "reel"), ("four-seat", "sim"))
TRIALS = 50
GIVE_UP_MS = 5000


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def reel_registry(layout, players, rng):
    """Consecutive ICODE serial numbers, stuck on the pieces in random order."""
    copies = copies_for_players(players)
    infos = [TagInfo.for_piece(piece, COPY_LETTERS[copy])
             for piece in PIECES for copy in range(copies)]
    rng.shuffle(infos)
    base = 0x04_016A_0000_0000 | rng.randrange(1 << 24) << 8  # 7 bytes after E0
    tags = {f"E0{base + index:014X}": info for index, info in enumerate(infos)}
    tags[f"E0{base + len(infos):014X}"] = TagInfo.token()
    return Registry(tags, table=f"reel {layout.name}")


def mid_game(table, layout, rng):
    """Homes (two stars and a large ship each), four colonies of a star and one
    to three ships each; everything else stays in the bank."""
    slots = list(layout.slots)
    used = set()
    for seat in layout.seats:
        slot = slots[seat.home_slot] if seat.home_slot is not None else slots[seat.index]
        used.add(slot.index)
        for _ in range(2):
            _put(table, rng.choice(PIECES), slot.star_zone)
        _put(table, rng.choice([q for q in PIECES if q.size == 3]), slot.ship_zone(seat.index))
    free = [s for s in slots if s.index not in used]
    for slot in rng.sample(free, 4):
        _put(table, rng.choice(PIECES), slot.star_zone)
        for _ in range(rng.randint(1, 3)):
            _put(table, rng.choice(PIECES), slot.ship_zone(rng.randrange(len(layout.seats))))


def _put(table, piece, zone):
    for candidate in [piece, *PIECES]:
        if table.bank_uids(candidate):
            table.place(table.take_from_bank(candidate), zone)
            return
    raise RuntimeError("the bank is empty")


class Run:
    """The simulated MCU, a host-side decoder and the figures collected."""

    def __init__(self, layout, registry, seed):
        self.layout = layout
        self.table = VirtualTable(layout, registry)
        self.mcu = SimulatedMcu(self.table, reader_model="pn5180", seed=seed)
        self.host = p.Decoder(accept=p.FROM_MCU)
        self.rounds: list[int] = []
        self.last_round = 0
        self.spurious = 0
        self.moving: set[int] = set()

    def start(self, rng):
        mid_game(self.table, self.layout, rng)
        self.mcu.settle()
        self.host.feed(self.mcu.read())
        self.last_round = self.mcu.scanner.rounds

    def run(self, ms, wanted=None):
        """Run ``ms`` of simulated time, or until a ZONE line satisfies ``wanted``
        (zone, uid, present): returns the time it came, else None."""
        mcu = self.mcu
        end = mcu.clock() + ms
        while mcu.clock() < end:
            mcu.step()
            if mcu.scanner.rounds != self.last_round:
                self.last_round = mcu.scanner.rounds
                self.rounds.append(mcu.scanner.round_ms)
            for message in self.host.feed(mcu.read()):
                if not isinstance(message, p.ZoneState):
                    continue
                if message.zone not in self.moving:
                    self.spurious += 1
                if wanted is not None and message.zone == wanted[0] \
                        and (wanted[1] in message.uids) == wanted[2]:
                    return mcu.clock()
        return None


def bench(layout_name, tags, seed=7):
    layout = builtin_layout(layout_name)
    rng = random.Random(seed)
    players = len(layout.seats)
    registry = make_registry(layout, players) if tags == "sim" else reel_registry(layout, players,
                                                                                  rng)
    run = Run(layout, registry, seed)
    run.start(rng)
    pads = [zone for slot in layout.slots for zone in slot.zones]
    placed, removed = [], []
    for _ in range(TRIALS):
        run.run(rng.randrange(50, 600))
        zone = rng.choice(pads)
        piece = rng.choice([q for q in PIECES if run.table.bank_uids(q)])
        run.moving = {zone, layout.bank_zone(piece)}
        uid = run.table.take_from_bank(piece)
        start = run.mcu.clock()
        run.table.place(uid, zone)
        seen = run.run(GIVE_UP_MS, (zone, uid, True))
        placed.append(GIVE_UP_MS if seen is None else seen - start)
        start = run.mcu.clock()
        run.table.to_bank(uid)
        gone = run.run(GIVE_UP_MS, (zone, uid, False))
        removed.append(GIVE_UP_MS if gone is None else gone - start)
        run.run(1500)  # the bank compartment catches up
        run.moving = set()
    slow_every = run.mcu.scanner.slow_every
    return {
        "round_ms_p50": statistics.median(run.rounds),
        "round_ms_p95": percentile(run.rounds, 0.95),
        "bank_refresh_ms_p50": statistics.median(run.rounds) * slow_every,
        "placement_to_zone_ms_p50": statistics.median(placed),
        "placement_to_zone_ms_p95": percentile(placed, 0.95),
        "removal_to_zone_ms_p95": percentile(removed, 0.95),
        "spurious_zone_lines": run.spurious,
    }


def run():
    results = {"model": f"CircuitPython x{CIRCUITPYTHON_FACTOR}, {FRAME_OVERHEAD_US:.0f} us per "
                        f"SPI frame, {TRIALS} placements per case"}
    for layout_name, tags in CASES:
        for key, value in bench(layout_name, tags).items():
            results[f"{layout_name} ({tags} tags) {key}"] = value
    return results


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key}: {value}")
    sys.exit(0)
