"""Scan speed of the table as a player meets it, on the timing model, per cost band and
per design (issue 25, item 5).

The simulated MCU runs the firmware's scan core with the real PN5180 driver over
emulated chips on the simulated board (``SimulatedMcu(reader_model="pn5180")``): air
time from ISO 15693, SPI at 7 MHz, and everything the microcontroller does charged from
hardware/scan-costs.toml - a command frame, a register read, taking the bus, a clock
reading, a pin reading, the scan core's bookkeeping per pad, GC pauses, the relay's and
the field's settle - in its *low*, *likely* and *high* band (or a file that
``homeworlds bringup-timing`` measured: ``--costs FILE``). A mid-game position is laid
out (homes, four colonies, the rest in the bank tray), then a piece is taken from the
bank and put on a random system pad at a random moment, trial after trial, and the time
until the firmware sends the ZONE line that shows it is measured (then it goes back).

Designs:

* ``batches`` (the wiring before issue 25: ``Board.transparent()``): every multiplexer's
  ``LE`` is tied high, so every board follows the shared select lines, a batch is one
  channel on every reader and waits for the slowest pad; no IRQ lines;
* ``pipelined`` (the reference wiring as built, hardware/layouts/*.toml and
  hardware/netlist/mux16.toml): each multiplexer board latches its own channel (its
  74HCT4514's ``LE``, strobed from the latch decoder), so every reader walks its own pads
  and starts the next the moment one is done; each PN5180's IRQ output goes to an MCU
  input, so an empty slot costs a pin reading instead of a register read;
* ``pipelined-no-irq``: the latches as built but no IRQ line (every wait ends with an
  IRQ_STATUS read over SPI): the option that saves the IRQ pins, measured to decide.

Every MCU pin write (select lines, latch strobe) costs the band's pin figure.

Tags are what a builder gets from one reel of ICODE tags (consecutive serial numbers,
stuck on the pieces in random order). Figures: round time (every system pad scanned
once; a share of the bank tray rides along each round), placement -> ZONE p50 and p95,
removal -> ZONE p95, spurious ZONE lines (a zone reported changed although nothing on
it moved). Targets on the likely band: round p95 <= 250 ms, placement p95 <= 300 ms.

    .venv/bin/python benchmarks/scan_bench.py                 # every band and design
    .venv/bin/python benchmarks/scan_bench.py --costs my.toml --bands likely
"""

from __future__ import annotations

import random
import statistics
import sys

from homeworlds.rules import PIECES
from homeworlds.sim import SimulatedMcu, VirtualTable, make_registry
from homeworlds.table.board import describe
from homeworlds.table.enroll import copies_for_players
from homeworlds.table.layout import builtin_layout
from homeworlds.table.registry import COPY_LETTERS, Registry, TagInfo
from homeworlds.table.scancosts import BANDS, load_costs
from tablefw import protocol as p

LAYOUTS = ("standard-2p", "four-seat")
DESIGNS = ("batches", "pipelined", "pipelined-no-irq")
TRIALS = 50
#: Targets on the likely band (issue 25): round p95, placement -> ZONE p95 (ms).
ROUND_P95_TARGET = 250
PLACEMENT_P95_TARGET = 300
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

    def __init__(self, layout, registry, seed, emulation=None):
        self.layout = layout
        self.table = VirtualTable(layout, registry)
        self.mcu = SimulatedMcu(self.table, reader_model="pn5180", seed=seed, emulation=emulation)
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


def emulation_for(design, band_costs, layout):
    """The emulated board's options for ``design`` with one band of costs."""
    options = {"costs": band_costs}
    board = describe(layout)
    if design == "batches":
        options["board"] = board.transparent()
    elif design == "pipelined-no-irq":
        options["irq"] = False
    elif design != "pipelined":
        raise ValueError(f"no design {design!r}: expected one of {', '.join(DESIGNS)}")
    return options


def bench(layout_name, tags, seed=7, design="batches", band_costs=None, trials=None):
    layout = builtin_layout(layout_name)
    rng = random.Random(seed)
    players = len(layout.seats)
    if tags == "sim":
        registry = make_registry(layout, players)
    else:
        registry = reel_registry(layout, players, rng)
    run = Run(layout, registry, seed, emulation_for(design, band_costs, layout))
    expected = design != "batches"
    if run.mcu.scanner.pipelined != expected:
        raise RuntimeError(f"{layout_name} {design}: the scan core runs "
                           f"{'pipelined' if run.mcu.scanner.pipelined else 'in batches'}")
    run.start(rng)
    pads = [zone for slot in layout.slots for zone in slot.zones]
    placed, removed = [], []
    for _ in range(trials or TRIALS):
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


def run(costs_path=None, bands=BANDS, layouts=LAYOUTS, designs=DESIGNS, trials=None):
    costs = load_costs(costs_path)
    results = {"costs": f"{costs.name} ({costs.path}), {trials or TRIALS} placements per case, "
                        "tags from one reel"}
    for band in bands:
        figures = costs.band(band)
        for layout_name in layouts:
            for design in designs:
                found = bench(layout_name, "reel", design=design, band_costs=figures, trials=trials)
                label = f"{band} {layout_name} {design}"
                for key in ("round_ms_p50", "round_ms_p95", "placement_to_zone_ms_p50",
                            "placement_to_zone_ms_p95", "removal_to_zone_ms_p95",
                            "spurious_zone_lines"):
                    results[f"{label} {key}"] = found[key]
                if band == "likely":
                    met = found["round_ms_p95"] <= ROUND_P95_TARGET \
                        and found["placement_to_zone_ms_p95"] <= PLACEMENT_P95_TARGET
                    results[f"{label} targets (round p95 <= {ROUND_P95_TARGET}, placement p95 <= "
                            f"{PLACEMENT_P95_TARGET} ms)"] = "met" if met else "MISSED"
    return results


def main(argv=None):
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--costs", help="costs file (default hardware/scan-costs.toml)")
    parser.add_argument("--bands", default=",".join(BANDS), help="comma-separated bands")
    parser.add_argument("--layouts", default=",".join(LAYOUTS))
    parser.add_argument("--designs", default=",".join(DESIGNS))
    parser.add_argument("--trials", type=int, default=TRIALS)
    options = parser.parse_args(argv)
    for key, value in run(options.costs, options.bands.split(","), options.layouts.split(","),
                          options.designs.split(","), options.trials).items():
        print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
