"""Mutation fuzzing of every input surface, shared by the tests (short, seeded) and
``make fuzz`` (benchmarks/input_fuzz.py, long).

A surface takes a seed input (an archive transcript, a cooked game, the example
configuration, a committed game on the table) and a list of mutations drawn by hypothesis,
feeds the mutated input to the real code (the ``homeworlds`` command in-process, the
configuration loader, the serial link and session) and checks what a user would: an exit
status of 0, 1 or 2, a message on stderr for 2, no traceback, nothing printed that drives the
terminal; for the serial link, no exception and no committed turn changed.
"""

from __future__ import annotations

import contextlib
import io
import random
import re
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from hypothesis import strategies as st

from homeworlds.cli import main
from homeworlds.runtime.config import ConfigError, load_config

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"
EXAMPLE_CONFIG = REPO / "hardware" / "table.example.toml"

#: Fragments of the formats' own syntax, and values that broke readers before.
TOKENS = (
    b"(", b")", b":", b",", b";", b"-", b"#", b"*", b"\t", b"\n", b"\r", b"\r\n", b" ", b"\x00",
    b"\x1b[2J", b"\x1b]0;x\x07", b"\x9b", b"\xc2\x85", b"\xe2\x80\xa8", b"\xff\xfe", b"\xc3",
    b"9" * 5000, b"1" + b"0" * 400, b"0", b"-1", b"99999999999", b"nan", b"inf", b"-inf", b"1e-9",
    b"1e999",
    b"true", b"= ", b"[", b"]", b"[[", b"{", b"}", b'"', b"'", b"'''", b'"""', b"\\u0000",
    b"Homeworlds Online (SDG# 1)", b"Participants: ", b"Winner: ", b"Variants: ", b"1) ",
    b"Homeworld Y1 B2 G3", b"Homeworld - - G3", b"Build G1 ", b"Attack G1N ", b"Discover ",
    b"Catastrophe ", b"Sacrifice Y3 ", b"Trade ", b"Move ", b"Pass",
    b"(0, ", b"(1, ", b"(2, ", b"y1b2", b"g3-", b"-r1", b"build g1 at ", b"LEGAL ",
    b"capture g1 at ", b"move r1 from A to B (b1)", b"catastrophe red at ", b"count_moves",
    b"[table]\n", b"[serial]\n", b"[handicaps]\n", b"[pixels]\n", b"[hints]\n",
    b"players = ", b"rules = ", b"layout = ", b"registry = ", b"baudrate = ",
    b"heartbeat_timeout = ", b"junior_seat = ", b"timewarp_turns = ", b"x = " + b"[" * 3000,
)

OPERATIONS = ("flip", "insert", "delete", "duplicate_line", "drop_line", "swap_lines",
              "truncate", "repeat", "grow_number", "grow_number_field", "after_word")
_DIGITS = re.compile(rb"\d+")
#: Numbers the readers convert: turn numbers, the game number, a home's owner.
_NUMBER_FIELD = re.compile(rb"(?m)^\d+|(?<=SDG# )\d+|(?<=\()\d+")
_WORD_END = re.compile(rb"[:(,] ?|\) ")

mutation = st.tuples(st.sampled_from(OPERATIONS), st.integers(0, 1 << 20),
                     st.integers(0, 1 << 20),
                     st.one_of(st.sampled_from(TOKENS), st.binary(min_size=1, max_size=8)))
mutations = st.lists(mutation, min_size=1, max_size=6)


def mutate(data: bytes, steps) -> bytes:
    """Apply mutation steps (operation, position, amount, payload) to ``data``."""
    for operation, position, amount, payload in steps:
        if operation in ("duplicate_line", "drop_line", "swap_lines"):
            data = _mutate_lines(data, operation, position, amount)
        elif operation in ("grow_number", "grow_number_field", "after_word"):
            data = _mutate_field(data, operation, position, amount, payload)
        else:
            data = _mutate_bytes(data, operation, position, amount, payload)
    return data


def _mutate_bytes(data: bytes, operation: str, position: int, amount: int,
                  payload: bytes) -> bytes:
    """flip, insert, delete, truncate, repeat: byte-level damage."""
    at = position % (len(data) + 1)
    if operation == "flip" and data:
        at = position % len(data)
        data = data[:at] + bytes([amount % 256]) + data[at + 1:]
    elif operation == "insert":
        data = data[:at] + payload + data[at:]
    elif operation == "delete":
        data = data[:at] + data[at + 1 + amount % 64:]
    elif operation == "truncate":
        data = data[:at]
    elif operation == "repeat":  # glue a stretch to itself: long lines, repeated turns
        stretch = data[at:at + 1 + amount % 200]
        data = data[:at] + stretch * (1 + amount % 50) + data[at:]
    return data


def _mutate_lines(data: bytes, operation: str, position: int, amount: int) -> bytes:
    """duplicate_line, drop_line, swap_lines."""
    lines = data.split(b"\n")
    line = position % len(lines)
    other = amount % len(lines)
    if operation == "duplicate_line":
        lines.insert(line, lines[line])
    elif operation == "drop_line":
        del lines[line]
    else:
        lines[line], lines[other] = lines[other], lines[line]
    return b"\n".join(lines)


def _mutate_field(data: bytes, operation: str, position: int, amount: int,
                  payload: bytes) -> bytes:
    """grow_number, grow_number_field, after_word: damage aimed at numbers and names."""
    if operation == "grow_number":  # a game, turn, seat or value number, made huge
        runs = list(_DIGITS.finditer(data))
        if runs:
            # the header's and first turns' numbers, where readers convert them
            end = runs[position % min(len(runs), 24)].end()
            data = data[:end] + b"7" * (4300 + amount % 1000) + data[end:]
    elif operation == "grow_number_field":
        runs = list(_NUMBER_FIELD.finditer(data))
        if runs:
            end = runs[position % len(runs)].end()
            data = data[:end] + b"7" * (4300 + amount % 1000) + data[end:]
    else:  # after_word: into a name or a value: after ':', '(', ',', ') '
        ends = list(_WORD_END.finditer(data))
        if ends:
            end = ends[position % min(len(ends), 24)].end()
            data = data[:end] + payload + data[end:]
    return data


@dataclass
class Outcome:
    code: int
    out: str
    err: str


class FuzzFailure(AssertionError):
    pass


def run_command(argv: list[str]) -> Outcome:
    """The ``homeworlds`` command in-process, with its output captured. Any exception that
    escapes is a crash (it would print a traceback)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exit_:  # argparse
            code = exit_.code if isinstance(exit_.code, int) else 2
    return Outcome(code, out.getvalue(), err.getvalue())


def check_outcome(outcome: Outcome, what: str) -> None:
    if outcome.code not in (0, 1, 2):
        raise FuzzFailure(f"{what}: exit status {outcome.code}")
    if outcome.code == 2 and not outcome.err.strip():
        raise FuzzFailure(f"{what}: exit 2 without a message")
    if "Traceback" in outcome.err:
        raise FuzzFailure(f"{what}: traceback\n{outcome.err}")
    for stream in (outcome.out, outcome.err):
        if any(not (ch.isprintable() or ch == "\n") for ch in stream):
            raise FuzzFailure(f"{what}: control character printed: {stream!r}")


tried: Counter[str] = Counter()


# ------------------------------------------------------------------------- seed inputs

def seed_files(kind: str, count: int, seed: int = 10) -> list[bytes]:
    """A seeded sample of archive files (``sdg`` or ``cooked``), smallest games first so
    that the replays stay quick; bundled fallbacks when ../shared is absent."""
    folder = SHARED / "games" / kind
    if folder.is_dir():
        files = sorted(folder.iterdir())
        chosen = random.Random(seed).sample(files, min(len(files), count * 4))
        chosen.sort(key=lambda p: p.stat().st_size)
        return [p.read_bytes() for p in chosen[:count]]
    if kind == "sdg":
        return [(REPO / "host" / "homeworlds" / "data" / name).read_bytes()
                for name in sorted(p.name for p in (REPO / "host" / "homeworlds" / "data")
                                   .glob("*.raw"))][:count]
    return [b"Home0 (0, y1b2) g3-\nHome1 (1, y3b1) -g3\nbuild g1 at Home0\nbuild y1 at Home1\n"]


# ------------------------------------------------------------------------- surfaces

def fuzz_transcript(seed: bytes, steps, workdir: Path, commands=("replay",)) -> None:
    """A mutated SDG transcript through ``homeworlds replay`` (and the others named)."""
    path = workdir / "game.raw"
    path.write_bytes(mutate(seed, steps))
    for command in commands:
        check_outcome(run_command([command, str(path)]), f"{command} on {steps!r}")
        tried[f"sdg {command}"] += 1


def fuzz_cooked(seed: bytes, steps, workdir: Path) -> None:
    """A mutated cooked game through ``replay``, ``wins`` and ``successors --limit``."""
    path = workdir / "game.cooked"
    path.write_bytes(mutate(seed, steps))
    for argv in (["replay", "--rules", "strict"], ["wins"], ["successors", "--limit", "3"]):
        check_outcome(run_command([*argv, str(path)]), f"{argv[0]} on {steps!r}")
        tried[f"cooked {argv[0]}"] += 1


def fuzz_config(seed: bytes, steps, workdir: Path) -> None:
    """A mutated configuration through the loader and ``homeworlds play --config``."""
    path = workdir / "table.toml"
    path.write_bytes(mutate(seed, steps))
    try:
        load_config(path)
    except ConfigError as exc:
        if "table.toml" not in str(exc):
            raise FuzzFailure(f"config error without the file name: {exc}") from None
    tried["config load"] += 1
    # No registry exists beside it, so play stops before opening any port.
    outcome = run_command(["play", "--config", str(path)])
    check_outcome(outcome, f"play --config on {steps!r}")
    if outcome.code != 2:
        raise FuzzFailure(f"play ran without a registry: {outcome}")
    tried["config play"] += 1


def workdir() -> tempfile.TemporaryDirectory:
    return tempfile.TemporaryDirectory(prefix="homeworlds-fuzz-")


# ------------------------------------------------------------------------- serial link

#: Ways a line goes wrong on the wire.
LINE_DAMAGE = ("random", "bad_crc", "truncate", "glue", "flip", "drop_newline", "duplicate",
               "error_report", "valid")

line_damage = st.lists(st.tuples(st.sampled_from(LINE_DAMAGE), st.integers(0, 1 << 16),
                                 st.binary(max_size=64)), min_size=1, max_size=40)


class CommittedTable:
    """A game whose first turns are committed, on a session fed by a real TableLink over a
    pipe from a scripted MCU that shows the table as it is."""

    def __init__(self, turns: int = 8):
        from homeworlds.notation import read_sdg
        from homeworlds.rules import GameState, preset
        from homeworlds.session import new_session
        from homeworlds.sim import TableDriver, VirtualTable, make_registry
        from homeworlds.table.layout import builtin_layout
        from tests.link.fakes import Bench

        game = read_sdg((REPO / "host" / "homeworlds" / "data" / _bundled_game()).read_text())
        rules = preset("sdg")
        layout = builtin_layout("standard-2p")
        registry = make_registry(layout, 2)
        table = VirtualTable(layout, registry, token_seat=game.turns[0].seat)
        driver = TableDriver(table, GameState(rules, 2, first_to_move=game.turns[0].seat))
        self.record = []
        for turn in game.turns[:turns]:
            driver.play_turn(turn.actions)
            self.record.append((turn.seat, turn.actions))
        zone_count = max(layout.all_zones) + 1
        self.bench = Bench(expected_zones=None, mcu_options={"zones": zone_count})
        for k, zone in enumerate(layout.all_zones):
            self.bench.mcu.tags[zone] = tuple(table.zone_sets()[k])
        self.session = new_session(layout, registry, rules, game.players, settle_s=0.0,
                                   clock=self.bench.clock)
        self.session.tracker.resume(self.record)
        self.zones = list(layout.all_zones)
        self._feed(self.bench.connect())
        self.committed = list(self.session.tracker.record)

    def _feed(self, events) -> None:
        for event in events:
            self.session.handle(event)
        self.session.evaluate(force=True)

    def send_damaged(self, damage) -> None:
        """Each (kind, n, payload) sends one damaged (or, for "valid", an intact) line."""
        from tablefw import protocol as p

        mcu = self.bench.mcu
        for kind, n, payload in damage:
            zone = self.zones[n % len(self.zones)]
            line = p.frame(n % p.SEQ_MODULO, f"ZONE {zone} " + (" ".join(mcu.tags[zone]) or "-"))
            if kind == "random":
                data = payload
            elif kind == "bad_crc":
                data = line[:-6] + b"%04X\n" % ((int(line[-5:-1], 16) + 1 + n) % 65536)
            elif kind == "truncate":
                data = line[:n % len(line)]
            elif kind == "glue":
                data = line[:-1] + line
            elif kind == "flip":
                at = n % (len(line) - 1)
                data = line[:at] + bytes([payload[0] if payload else 0x7E]) + line[at + 1:]
            elif kind == "drop_newline":
                data = line[:-1]
            elif kind == "duplicate":
                data = line + line
            elif kind == "error_report":  # a reader fault, as a failing reader repeats it
                mcu.send(p.ErrorReport(0, "TIMEOUT", payload.hex() or "no answer"))
                data = b""
            else:  # the table's own report, intact: what it really shows
                mcu.set_zone(zone, mcu.tags[zone])
                data = b""
            if data:
                mcu.send_raw(data)
            self._feed(self.bench.poll())
            tried[f"serial {kind}"] += 1
            if n % 3 == 0:
                self._feed(self.bench.advance(0.5))  # heartbeats, pings, resync

    def check(self) -> None:
        record = self.session.tracker.record
        if list(record[:len(self.committed)]) != self.committed:
            raise FuzzFailure("a committed turn changed under serial noise")


def _bundled_game() -> str:
    """The bundled two-player game (the data also holds ``demo --players 3|4``'s games)."""
    from homeworlds.notation import read_sdg

    paths = sorted((REPO / "host" / "homeworlds" / "data").glob("*.raw"))
    return next(p.name for p in paths if len(read_sdg(p.read_text()).players) == 2)


def fuzz_serial(damage, turns: int = 8) -> None:
    table = CommittedTable(turns)
    table.send_damaged(damage)
    # A newline ends whatever half line is left; the table's real state then arrives.
    table.bench.mcu.send_raw(b"\n")
    table.bench.mcu.send_snapshot()
    table._feed(table.bench.exchange())
    table.check()
