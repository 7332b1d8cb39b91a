"""The star map as SVG: a position (and what the LEDs hint) drawn for a screen or a phone.

Pure functions, no I/O: ``render_svg(state)`` returns the text of one ``<svg>`` element.
Every system is a card with its star pieces drawn as upright pyramids of their colour and
size, and its ships as pyramids lying on their side, grouped in one band per owner (the
owner's colour and name; a captured ship simply is the captor's, so it is drawn in the
captor's band), pointing away from their owner as the rulebook has it (``000_*.txt``,
"pieces always point away from you"). Home systems carry their owner's name and border.
Lines join the systems that are connected: those that share no star size (``000_*.txt``:
"Differently-sized star systems are connected, but same-sized stars are not"; the engine's
``System.connected_to``). The systems are placed as that rulebook's "ARRANGING THE STAR
MAP" says: each home at its own side, the systems connected to it nearest to it, the others
in the middle. Below the map, the bank with a count for each piece.

The drawing has a ``viewBox`` and no pixel size, so it fills whatever box the page gives it,
from a 1920×1080 screen across a room to a phone. Elements carry stable attributes that
tests and the live page read back: ``data-system`` (the name), ``data-home-of`` (a seat),
``data-piece`` (``r1`` .. ``b3``), ``data-role`` (``star``/``ship``), ``data-owner`` (a
seat), ``data-count`` (bank), ``data-a``/``data-b`` (a connection). Every name is escaped
(it comes from a transcript, a file or a player: never markup).

An ``Overlay`` adds the hints the LEDs show: a lifted ship and its legal destinations,
overpopulated systems, the seat in Red Alert, mistakes with their slot, a guidance step and
the result, plus a caption (the archive viewer's and the attract mode's).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache

from homeworlds.display.printable import printable
from homeworlds.display.story import TurnStory
from homeworlds.notation import read_cooked
from homeworlds.rules import PIECES, GameState, InvalidNotation, Piece, System, preset

__all__ = ["COLOR_FILL", "SEAT_COLORS", "Overlay", "render_cooked_svg", "render_snapshot_svg",
           "render_svg", "state_from_cooked"]

#: Piece colours, in the engine's colour order (red, yellow, green, blue).
COLOR_NAMES = ("red", "yellow", "green", "blue")
COLOR_FILL = ("#e53935", "#fdd835", "#43a047", "#1e88e5")
COLOR_SHADE = ("#a31f1c", "#c9a90f", "#2a7030", "#135fa3")
#: Owners' colours: none of them a piece colour, each readable on the dark cards.
SEAT_COLORS = ("#f2f2f2", "#d17bff", "#38e0d0", "#ff9e40", "#ff7aa8", "#b0c4ff")

CARD_W = 320
#: The card's header: the system's name, and "home of ..." under it.
HEADER_H = 76
STAR_H = 96
ROW_H = 58
#: The card's last line: what the last turn did there (empty when nothing).
NOTE_H = 40
GAP_X = 70
GAP_Y = 30
MARGIN = 24
BANK_H = 178
#: Pyramid height and base width by size (1, 2, 3): a large piece is plainly larger.
PYRAMID_H = (0, 34, 48, 62)
PYRAMID_W = (0, 26, 36, 46)
MIN_WIDTH = 1280
#: A phone held upright: two cards side by side.
PORTRAIT_COLUMNS = 2
PORTRAIT_GAP = 20
#: The smallest text on the map, in drawing units. A map of 14 systems drawn in the live
#: page's box at 1920x1080 is scaled by about 0.65, a phone's by 0.57: at least 14 px.
FONT = 26
#: The widest a character of the map's font is, as a share of its size (for cutting text
#: to a width; DejaVu Sans averages 0.55).
CHAR_W = 0.56
#: Above this many systems only the connections of the systems in focus (the lifted ship's
#: origin, else what the last turn touched) are drawn: all of them would tangle.
ALL_CONNECTIONS_UP_TO = 7
#: The mark of a system the last turn touched, by mark kind (``display.story``).
MARK_COLOR = "#ffb300"
CATASTROPHE_COLOR = "#ff6d00"
NOTE_WORDS = {"catastrophe": "catastrophe", "moved-to": "arrived", "discovered": "discovered",
              "built": "built", "traded": "traded", "captured": "captured",
              "sacrificed": "sacrificed", "moved-from": "left", "homeworld": "new home",
              "faded": "faded"}
#: Marks that leave a piece on the card to point at (the ship that arrived, was built ...).
PIECE_MARKS = ("moved-to", "discovered", "built", "traded", "captured", "homeworld")


@dataclass(frozen=True, slots=True)
class Overlay:
    """What to draw over the position. Systems are named as in the position (any case).

    ``lifted`` is (seat, piece text, origin system); ``destinations`` the systems that ship
    may legally go to (``discover`` True: a new system too); ``overpopulated`` systems with
    four of a colour (the drawing marks those of the position anyway); ``mistakes`` (slot,
    text); ``guidance`` one sentence; ``result`` the ending as text; ``caption`` a line
    under the title (archive viewer, attract mode).
    """

    lifted: tuple[int, str, str] | None = None
    destinations: frozenset[str] = frozenset()
    discover: bool = False
    overpopulated: frozenset[str] = frozenset()
    red_alert_seat: int | None = None
    mistakes: tuple[tuple[str, str], ...] = ()
    guidance: str | None = None
    result: str | None = None
    caption: str | None = None
    title: str | None = None
    #: What the last turn did (``display.story.tell_turn``), marked on its systems.
    story: TurnStory | None = None

    @classmethod
    def from_feed(cls, hints: Mapping | None, *, result: Mapping | None = None,
                  caption: str | None = None) -> Overlay:
        """From the table feed's ``hints`` (and ``game.result``) of a snapshot event
        (docs/display.md). Unknown keys are ignored; a malformed value is left out."""
        hints = hints or {}
        lifted = None
        raw = hints.get("lifted")
        if isinstance(raw, Mapping):
            piece = str(raw.get("piece", ""))
            origin = raw.get("system", raw.get("from", raw.get("origin")))
            seat = raw.get("seat")
            if piece and isinstance(seat, int):
                lifted = (seat, piece, "" if origin is None else str(origin))
        destinations = set()
        discover = bool(hints.get("may_discover"))
        for item in hints.get("legal_destinations") or ():
            name = item.get("system") if isinstance(item, Mapping) else item
            if name is None or (isinstance(item, Mapping) and item.get("new")):
                discover = True
            elif isinstance(name, str):
                destinations.add(name.casefold())
        overpopulated = set()
        for item in hints.get("overpopulated") or ():
            name = item.get("system") if isinstance(item, Mapping) else item
            if isinstance(name, str):
                overpopulated.add(name.casefold())
        mistakes = tuple((str(m.get("slot", "")), str(m.get("text", "")))
                         for m in hints.get("mistakes") or () if isinstance(m, Mapping))
        guidance = hints.get("guidance")
        if isinstance(guidance, Mapping):
            guidance = guidance.get("text") or guidance.get("message") or next(
                (v for v in guidance.values() if isinstance(v, str) and v), None)
        guidance = guidance or hints.get("message") or None
        red = hints.get("red_alert_seat")
        text = result.get("text") if isinstance(result, Mapping) else None
        return cls(lifted=lifted, destinations=frozenset(destinations), discover=discover,
                   overpopulated=frozenset(overpopulated),
                   red_alert_seat=red if isinstance(red, int) else None, mistakes=mistakes,
                   guidance=str(guidance) if guidance else None,
                   result=str(text) if text else None, caption=caption)


def esc(text: object) -> str:
    """Text safe inside an SVG/XML element or a quoted attribute: markup escaped, control
    characters (which XML cannot hold) shown as visible escapes."""
    return html.escape(printable(str(text)), quote=True)


# ---------------------------------------------------------------------- the position


def state_from_cooked(position: str, rules: str = "sdg", to_move: int = 0) -> GameState:
    """The position of a cooked text (``notation.cooked.write_position``; the table feed's
    ``position``) as a GameState. InvalidNotation names the line; ValueError a position the
    bank cannot hold."""
    game = read_cooked(position, source="position")
    if game.turns or game.samples:
        raise InvalidNotation("a position has no turns (expected only system lines)",
                              source="position")
    return GameState.from_position(game.systems, preset(rules), to_move=to_move)


def render_snapshot_svg(snapshot: Mapping, *, portrait: bool = False,
                        caption: str | None = None, aspect: float | None = None,
                        with_bank: bool = True, with_top: bool = True) -> str:
    """The star map of a table-feed ``snapshot`` event (its JSON form, docs/display.md):
    position, bank, players, whose turn, hints, the last turn (``last_turn``: marked on the
    map while no action of the next one is on the table) and result.
    InvalidNotation/ValueError for a position that cannot be read."""
    game = snapshot.get("game") or {}
    rules = game.get("rules") or "sdg"
    try:
        preset(rules)
    except (KeyError, ValueError):
        rules = "sdg"  # the bank comes with the snapshot; the preset only sizes a default
    players = _with_revealed(game.get("players") or (), game.get("revealed") or ())
    position = snapshot.get("position") or ""
    overlay = Overlay.from_feed(snapshot.get("hints"), result=game.get("result"),
                                caption=caption)
    story = None if snapshot.get("turn_in_progress") else snapshot_story(snapshot)
    if story is not None:
        overlay = replace(overlay, story=story)
    if not position and len(players) > 2:
        # The cooked text holds two seats: draw the snapshot's ``systems`` (every seat).
        state = state_from_systems(snapshot.get("systems") or (), len(players),
                                   int(game.get("to_move") or 0), snapshot.get("bank"))
        return render_svg(state, players=players, overlay=overlay, portrait=portrait,
                          aspect=aspect, with_bank=with_bank, with_top=with_top)
    return render_cooked_svg(position, rules=rules,
                             to_move=int(game.get("to_move") or 0),
                             players=players or None, overlay=overlay,
                             bank=snapshot.get("bank"), portrait=portrait, aspect=aspect,
                             with_bank=with_bank, with_top=with_top)


def snapshot_story(snapshot: Mapping) -> TurnStory | None:
    """The story of a snapshot's last turn (``last_turn``: its seat, SDG text and the
    position before it); None without one or when it cannot be told."""
    last = snapshot.get("last_turn")
    game = snapshot.get("game") or {}
    if not isinstance(last, Mapping):
        return None
    try:
        return _story(str(last.get("before", "")), str(last.get("sdg", "")),
                      int(last.get("seat", 0)), tuple(game.get("players") or ()),
                      str(game.get("rules") or "sdg"))
    except (InvalidNotation, ValueError, KeyError, TypeError):
        return None


@lru_cache(maxsize=16)
def _story(before: str, sdg: str, seat: int, players: tuple[str, ...],
           rules: str) -> TurnStory | None:
    from homeworlds.display.story import tell_turn
    from homeworlds.store.records import turn_from_sdg

    if len(players) != 2:
        return None
    if before:
        state = state_from_cooked(before, rules, seat)
    else:
        state = GameState(preset(rules), 2, first_to_move=seat)
    story = tell_turn(state, turn_from_sdg(sdg, seat, players), seat, players)
    return None if story.failed else story


def _with_revealed(players: Sequence[str], revealed: Sequence[str | None]) -> tuple[str, ...]:
    """Good/Evil: the players' names with the alignments an elimination revealed, as the
    map shows them (``Ann (Good)``)."""
    out = []
    for k, name in enumerate(players):
        card = revealed[k] if k < len(revealed) else None
        out.append(f"{name} ({card.capitalize()})" if card in ("good", "evil") and card
                   else name)
    return tuple(out)


@dataclass(frozen=True, slots=True)
class _SystemSpec:
    """One system of a feed snapshot's ``systems``, as ``GameState.from_position`` reads it."""

    name: str
    home_of: int | None
    stars: tuple[Piece, ...]
    ships: tuple[tuple[Piece, ...], ...]


def state_from_systems(systems: Sequence[Mapping], players: int, to_move: int = 0,
                       bank: Mapping[str, int] | None = None) -> GameState:
    """The position of a feed snapshot's ``systems`` (any number of seats) as a GameState
    to draw. ValueError for a position that cannot be read (no systems: nothing to draw)."""
    if not systems:
        raise ValueError(f"the snapshot of a {players}-player game has no systems to draw")
    specs = [_SystemSpec(s["name"], s.get("home_of"),
                         tuple(Piece.from_text(p) for p in s["stars"]),
                         tuple(tuple(Piece.from_text(p) for p in fleet) for fleet in s["ships"]))
             for s in systems]
    # Only the drawing is wanted: a preset for any number of seats, no Good/Evil deal.
    state = GameState.from_position(specs, preset("last-standing"), to_move=to_move,
                                    players=players)
    if bank is not None:
        for index, piece in enumerate(PIECES):
            if piece.to_text() in bank:
                state.bank[index] = int(bank[piece.to_text()])
    return state


def render_cooked_svg(position: str, *, rules: str = "sdg", to_move: int = 0,
                      players: Sequence[str] | None = None, overlay: Overlay | None = None,
                      bank: Mapping[str, int] | None = None, portrait: bool = False,
                      aspect: float | None = None, with_bank: bool = True,
                      with_top: bool = True) -> str:
    """``render_svg`` of a cooked position text; ``bank`` (piece text -> count, the feed's)
    replaces the one worked out from the rules' piece count."""
    state = state_from_cooked(position, rules, to_move) if position else \
        GameState(preset(rules), max(2, len(players or ())), first_to_move=to_move)
    if bank is not None:
        for index, piece in enumerate(PIECES):
            if piece.to_text() in bank:
                state.bank[index] = int(bank[piece.to_text()])
    return render_svg(state, players=players, overlay=overlay, portrait=portrait,
                      aspect=aspect, with_bank=with_bank, with_top=with_top)


# ---------------------------------------------------------------------- layout


@dataclass(slots=True)
class _Placed:
    system: System
    x: float
    y: float
    ships_point: tuple[int, ...] = field(default=())  # +1 right, -1 left, per seat
    h: float = 0.0  # the card's height


def _columns(state: GameState) -> list[list[System]]:
    """Lines of systems from left to right, as the rulebook arranges the star map; within
    a line, by star size (small stars first), so that where a system lies says which
    others it is connected to."""
    homes = {s.home_of: s for s in state.systems if s.home_of is not None}
    others = sorted((s for s in state.systems if s.home_of is None),
                    key=lambda s: (sorted(s.star_sizes()), s.key))
    if state.players == 2:
        left, right = homes.get(0), homes.get(1)
        near_left: list[System] = []
        middle: list[System] = []
        near_right: list[System] = []
        for s in others:
            a = left is not None and s.connected_to(left)
            b = right is not None and s.connected_to(right)
            (near_left if a and not b else near_right if b and not a else middle).append(s)
        columns = [[left] if left else [], near_left, middle, near_right,
                   [right] if right else []]
        return [c for c in columns if c]
    # Three or more seats: homes on both sides, in seating order around the table.
    seats = sorted(homes)
    half = (len(seats) + 1) // 2
    left_homes = [homes[s] for s in seats[:half]]
    right_homes = [homes[s] for s in reversed(seats[half:])]
    return [c for c in [left_homes, others, right_homes] if c]


def _fleet_seats(system: System, players: int) -> list[int]:
    """The seats with ships in ``system``: each gets a row of the card (an empty system,
    mid-turn, keeps one empty row)."""
    return [seat for seat in range(players) if any(system.ships[seat])]


def _card_h(system: System, players: int) -> float:
    rows = max(1, len(_fleet_seats(system, players)))
    return HEADER_H + STAR_H + ROW_H * rows + NOTE_H + 6


def _column_h(column: Sequence[System], players: int, gap: float = GAP_Y) -> float:
    return sum(_card_h(s, players) for s in column) + gap * max(0, len(column) - 1)


def _landscape(lines: list[list[System]], players: int, top_h: float, bottom_h: float,
               aspect: float) -> tuple[list[list[System]], float]:
    """The columns that let the cards be drawn largest in a box of ``aspect`` (width /
    height), with the drawing's width: the rulebook's lines (a long one cut in several),
    or, on a crowded map, the same order flowing from column to column."""
    order = [s for line in lines for s in line]
    candidates: list[list[list[System]]] = []
    for rows in range(1, max(1, len(order)) + 1):
        candidates.append([line[i:i + rows] for line in lines
                           for i in range(0, len(line), rows)])
    for rows in range(1, max(1, len(order)) + 1):
        candidates.append([order[i:i + rows] for i in range(0, len(order), rows)])
    best: tuple[float, list[list[System]], float] | None = None
    for k, columns in enumerate(candidates):
        tallest = max((_column_h(c, players) for c in columns), default=0.0)
        w = max(1, len(columns)) * CARD_W + max(0, len(columns) - 1) * GAP_X + 2 * MARGIN
        h = top_h + tallest + GAP_Y + bottom_h
        scale = min(aspect / w, 1 / h)
        # The rulebook's lines (the first candidates) win unless the flow is plainly larger.
        bonus = 1.0 if k < len(candidates) // 2 else 0.93
        if best is None or scale * bonus > best[0] * 1.0001:
            best = (scale * bonus, columns, w)
    assert best is not None
    return best[1], best[2]


def _layout(state: GameState, top_h: float, portrait: bool = False,
            aspect: float | None = None,
            bottom_h: float = 0.0) -> tuple[list[_Placed], float, float]:
    """Each system's card position, the drawing's width and the map's bottom. Landscape:
    the rulebook's columns from left to right (a long one cut in two or more, or on a
    crowded map the systems flowing through the columns in that order, so that the drawing
    fits a box of ``aspect``); portrait (a phone): the same order from top to bottom, two
    cards a row. ``bottom_h``: what is drawn under the map (the bank)."""
    lines = _columns(state)
    players = state.players
    left_seats = {s.home_of for s in lines[0] if s.home_of is not None} if lines else set()
    point = tuple(1 if (seat in left_seats or (players == 2 and seat == 0)) else -1
                  for seat in range(players))
    placed = []
    if portrait:
        order = [s for line in lines for s in line]
        cols = PORTRAIT_COLUMNS
        width: float = cols * CARD_W + (cols - 1) * PORTRAIT_GAP + 2 * (MARGIN // 2)
        y = top_h
        for k in range(0, len(order), cols):
            row = order[k:k + cols]
            x = (width - (len(row) * CARD_W + (len(row) - 1) * PORTRAIT_GAP)) / 2
            for system in row:
                placed.append(_Placed(system, x, y, point, _card_h(system, players)))
                x += CARD_W + PORTRAIT_GAP
            y += max(_card_h(s, players) for s in row) + PORTRAIT_GAP
        return placed, width, max(y, top_h + 200) + GAP_Y * 0.4
    columns, map_w = _landscape(lines, players, top_h, bottom_h, aspect or 1280 / 760)
    width = max(MIN_WIDTH if aspect is None else 0, map_w)
    inner_h = max((_column_h(c, players) for c in columns), default=200.0)
    inner_w = len(columns) * CARD_W + max(0, len(columns) - 1) * GAP_X
    x0 = (width - inner_w) / 2
    for k, column in enumerate(columns):
        y = top_h + (inner_h - _column_h(column, players)) / 2
        for system in column:
            h = _card_h(system, players)
            placed.append(_Placed(system, x0 + k * (CARD_W + GAP_X), y, point, h))
            y += h + GAP_Y
    return placed, width, top_h + inner_h + GAP_Y


# ---------------------------------------------------------------------- drawing


def _pyramid(index: int, x: float, base_y: float, role: str, owner: int | None = None,
             direction: int = 1, touched: bool = False) -> str:
    """One piece: upright (a star) or lying with its tip towards ``direction`` (a ship).
    (x, base_y) is the middle of the base of an upright piece, the middle of a lying one.
    ``touched``: the last turn put it there (ringed)."""
    piece = PIECES[index]
    size, color = int(piece.size), int(piece.color)
    h, w = PYRAMID_H[size], PYRAMID_W[size]
    if role != "ship":
        outline = [(x - w / 2, base_y), (x, base_y - h), (x + w / 2, base_y)]
        shade = [(x, base_y - h), (x + w / 2, base_y), (x + w * 0.12, base_y)]
        pips_at = [(x + (i - (size - 1) / 2) * 7, base_y - 6) for i in range(size)]
        centre = (x, base_y - h / 2)
    else:
        tip = x + direction * h / 2
        back = x - direction * h / 2
        outline = [(back, base_y - w / 2), (tip, base_y), (back, base_y + w / 2)]
        shade = [(tip, base_y), (back, base_y + w / 2), (back, base_y + w * 0.12)]
        pips_at = [(back + direction * 6, base_y + (i - (size - 1) / 2) * 7)
                   for i in range(size)]
        centre = (x, base_y)
    owner_attr = "" if owner is None else f' data-owner="{owner}"'
    name = f"{COLOR_NAMES[color]} {size} {role}"
    pips = "".join(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="2.2" class="pip"/>'
                   for px, py in pips_at)
    ring = (f'<circle class="touched-ring" cx="{centre[0]:.1f}" cy="{centre[1]:.1f}" '
            f'r="{max(h, w) / 2 + 5:.1f}" fill="{MARK_COLOR}" fill-opacity="0.25" '
            f'stroke="{MARK_COLOR}" stroke-width="3"/>') if touched else ""
    cls = f"piece {role} {COLOR_NAMES[color]}" + (" touched" if touched else "")
    return (f'<g class="{cls}" data-piece="{piece.to_text()}" '
            f'data-role="{role}"{owner_attr}><title>{name}</title>{ring}'
            f'<polygon points="{_points(outline)}" fill="{COLOR_FILL[color]}" '
            f'stroke="#0b0d12" stroke-width="1.5"/>'
            f'<polygon points="{_points(shade)}" fill="{COLOR_SHADE[color]}"/>{pips}</g>')


def _points(points: Iterable[tuple[float, float]]) -> str:
    return " ".join(f"{px:.1f},{py:.1f}" for px, py in points)


def _row(indices: list[int], centre_x: float, y: float, role: str, owner: int | None,
         direction: int, room: float, touched: Sequence[bool] = ()) -> str:
    """Pieces side by side around ``centre_x``; a row too long for ``room`` is squeezed."""
    if not indices:
        return ""
    widths = [(PYRAMID_W if role == "star" else PYRAMID_H)[int(PIECES[i].size)]
              for i in indices]
    gap = 10
    total = sum(widths) + gap * (len(widths) - 1)
    scale = min(1.0, room / total)
    x = -total / 2
    parts = []
    for k, (index, w) in enumerate(zip(indices, widths, strict=True)):
        parts.append(_pyramid(index, x + w / 2, 0, role, owner, direction,
                              k < len(touched) and touched[k]))
        x += w + gap
    return (f'<g transform="translate({centre_x:.1f},{y:.1f}) scale({scale:.3f})">'
            + "".join(parts) + "</g>")


def _fit(text: str, width: float, size: float = FONT) -> str:
    """``text`` cut to what fits ``width`` drawing units at font ``size``."""
    return _short(text, max(4, int(width / (size * CHAR_W))))


def _note(marks: Sequence) -> str:
    kinds = sorted({m.kind for m in marks},
                   key=lambda k: list(NOTE_WORDS).index(k) if k in NOTE_WORDS else 99)
    return ", ".join(NOTE_WORDS.get(k, k) for k in kinds)


def _touched(fleet: list[int], seat: int, marks: Sequence) -> list[bool]:
    """Which of a fleet's ships (in drawing order) the last turn put there."""
    wanted: dict[str, int] = {}
    for m in marks:
        if m.kind in PIECE_MARKS and m.seat == seat and m.piece:
            wanted[m.piece] = wanted.get(m.piece, 0) + 1
    out = []
    for i in fleet:
        text = PIECES[i].to_text()
        out.append(wanted.get(text, 0) > 0)
        if wanted.get(text, 0) > 0:
            wanted[text] -= 1
    return out


def _system(placed: _Placed, state: GameState, players: Sequence[str], overlay: Overlay,
            ident: str) -> str:
    s = placed.system
    key = s.key
    classes = ["system"]
    if s.home_of is not None:
        classes.append("home")
    over_colors = [COLOR_NAMES[c] for c in s.overpopulated_colors()]
    if over_colors or key in overlay.overpopulated:
        classes.append("overpopulated")
    if key in overlay.destinations:
        classes.append("destination")
    if overlay.lifted is not None and overlay.lifted[2].casefold() == key:
        classes.append("origin")
    if s.home_of is not None and s.home_of == overlay.red_alert_seat:
        classes.append("red-alert")
    marks = overlay.story.marks_at(s.name) if overlay.story is not None else ()
    if marks:
        classes.append("touched")
    card_h = placed.h or _card_h(s, state.players)
    stars = "".join(PIECES[i].to_text() for i in sorted(s.stars))
    home_attr = "" if s.home_of is None else f' data-home-of="{s.home_of}"'
    mark_attr = (f' data-marks="{esc(" ".join(dict.fromkeys(m.kind for m in marks)))}"'
                 if marks else "")
    border = SEAT_COLORS[s.home_of % len(SEAT_COLORS)] if s.home_of is not None else "#4a5470"
    out = [f'<g id="{ident}" class="{" ".join(classes)}" data-system="{esc(s.name)}"'
           f'{home_attr}{mark_attr} data-stars="{stars}" transform="translate({placed.x:.1f},'
           f'{placed.y:.1f})">']
    out.append(f'<rect class="card" x="0" y="0" width="{CARD_W}" height="{card_h}" rx="16" '
               f'fill="#1b2030" stroke="{border}" '
               f'stroke-width="{6 if s.home_of is not None else 2}"/>')
    if marks:
        out.append(_touched_mark(marks, card_h))
    out.append(_hint_marks(classes, card_h))
    name_size = FONT + 2
    out.append(f'<text class="system-name label" x="16" y="32" font-size="{name_size}" '
               f'font-weight="700" fill="#ffffff">{esc(_fit(s.name, CARD_W - 28, name_size))}'
               f'<title>{esc(s.name)}</title></text>')
    if s.home_of is not None:
        owner = players[s.home_of] if s.home_of < len(players) else f"seat {s.home_of + 1}"
        out.append(f'<text class="home-label label" x="16" y="64" font-size="{FONT}" '
                   f'fill="{border}">{esc(_fit("home of " + owner, CARD_W - 28))}</text>')
    star_indices = sorted(s.stars, key=lambda i: (-(i % 3), i))
    out.append('<g class="stars">' + _row(star_indices, CARD_W / 2, HEADER_H + STAR_H - 10,
                                           "star", None, 1, CARD_W - 40) + "</g>")
    if over_colors or key in overlay.overpopulated:
        words = ", ".join(over_colors) if over_colors else "overpopulated"
        out.append(f'<g class="overpopulation" data-colors="{esc(" ".join(over_colors))}">'
                   f'<rect x="8" y="{HEADER_H - 4}" width="{CARD_W - 16}" height="34" rx="6" '
                   f'fill="#b71c1c" fill-opacity="0.92"/><text class="label" '
                   f'x="{CARD_W / 2}" y="{HEADER_H + 22}" text-anchor="middle" '
                   f'font-size="{FONT}" fill="#fff">'
                   f'{esc(_fit("overpopulated: " + words, CARD_W - 24))}</text></g>')
    rows = _fleet_seats(s, state.players)
    for seat in range(state.players):
        y = HEADER_H + STAR_H + ROW_H * (rows.index(seat) if seat in rows else 0)
        fleet = [i for i in range(12) for _ in range(s.ships[seat][i])]
        colour = SEAT_COLORS[seat % len(SEAT_COLORS)]
        name = players[seat] if seat < len(players) else f"seat {seat + 1}"
        ships = "".join(PIECES[i].to_text() for i in fleet)
        out.append(f'<g class="fleet" data-owner="{seat}" data-ships="{ships}">')
        if fleet:
            out.append(f'<rect class="band" x="8" y="{y}" width="{CARD_W - 16}" '
                       f'height="{ROW_H - 6}" rx="10" fill="{colour}" fill-opacity="0.16" '
                       f'stroke="{colour}" stroke-width="2"><title>{esc(name)}\u2019s ships'
                       f'</title></rect><rect class="owner-chip" x="8" y="{y}" width="34" '
                       f'height="{ROW_H - 6}" rx="10" fill="{colour}"/>'
                       f'<text class="owner label" x="25" y="{y + ROW_H / 2 + 6}" '
                       f'text-anchor="middle" font-size="{FONT}" font-weight="700" '
                       f'fill="#10131a">{esc(name[:1].upper() or "?")}</text>')
            out.append(_row(fleet, CARD_W / 2 + 20, y + ROW_H / 2 - 3, "ship", seat,
                            placed.ships_point[seat], CARD_W - 74,
                            _touched(fleet, seat, marks)))
        out.append("</g>")
    if marks:
        out.append(_turn_note(marks, card_h))
    out.append("</g>")
    return "".join(out)


def _hint_marks(classes: Sequence[str], card_h: float) -> str:
    """The outlines of what the LEDs hint at a card: a legal destination of the lifted
    ship, its origin, a home in Red Alert."""
    out = []
    if "destination" in classes:
        out.append(f'<rect class="destination-mark" x="-8" y="-8" width="{CARD_W + 16}" '
                   f'height="{card_h + 16}" rx="22" fill="none" stroke="#7CFC00" '
                   'stroke-width="6" stroke-dasharray="18 10"/>')
    if "origin" in classes:
        out.append(f'<rect class="origin-mark" x="-8" y="-8" width="{CARD_W + 16}" '
                   f'height="{card_h + 16}" rx="22" fill="none" stroke="#ffffff" '
                   'stroke-width="4"/>')
    if "red-alert" in classes:
        out.append(f'<rect class="red-alert-mark" x="-10" y="-10" width="{CARD_W + 20}" '
                   f'height="{card_h + 20}" rx="24" fill="none" stroke="#ff1744" '
                   'stroke-width="8"/>')
    return "".join(out)


def _mark_colour(marks: Sequence) -> str:
    return CATASTROPHE_COLOR if any(m.kind == "catastrophe" for m in marks) else MARK_COLOR


def _touched_mark(marks: Sequence, card_h: float) -> str:
    """The outline of a card the last turn touched: dashed where ships only left."""
    only_left = all(m.kind in ("moved-from", "sacrificed") for m in marks)
    dash = ' stroke-dasharray="14 8"' if only_left else ""
    return (f'<rect class="touched-mark" x="-5" y="-5" width="{CARD_W + 10}" '
            f'height="{card_h + 10}" rx="20" fill="none" stroke="{_mark_colour(marks)}" '
            f'stroke-width="5"{dash}/>')


def _turn_note(marks: Sequence, card_h: float) -> str:
    """The card's last line: what the last turn did there (all of it in its title)."""
    return (f'<text class="turn-note label" x="16" y="{card_h - 14}" '
            f'font-size="{FONT}" font-weight="700" fill="{_mark_colour(marks)}">'
            f'{esc(_fit(_note(marks), CARD_W - 28))}<title>'
            f'{esc("; ".join(m.words for m in marks))}</title></text>')


def _short(text: str, n: int) -> str:
    """At most ``n`` characters on a card (the whole name is in the data and the title)."""
    return text if len(text) <= n else text[:n - 1] + "\u2026"


def _identifiers(systems: Sequence[System]) -> dict[str, str]:
    """An element id for each system (keyed by its casefolded name): ``system-`` and the
    name's letters and digits, unique."""
    used: set[str] = set()
    out = {}
    for s in systems:
        base = "system-" + (re.sub(r"[^a-z0-9]+", "-", s.key.encode("ascii", "ignore")
                                   .decode()).strip("-") or "x")
        ident, n = base, 2
        while ident in used:
            ident, n = f"{base}-{n}", n + 1
        used.add(ident)
        out[s.key] = ident
    return out


SIZE_HEADINGS = ("small", "medium", "large")


def _bank(state: GameState, width: float, y: float) -> str:
    """The bank: a group per colour, a column per size under its heading, the count under
    each piece."""
    inner = width - 2 * MARGIN
    out = [f'<g class="bank" transform="translate(0,{y:.1f})">'
           f'<rect x="{MARGIN}" y="0" width="{inner}" height="{BANK_H - 16}" '
           'rx="16" fill="#151925" stroke="#4a5470" stroke-width="2"/>'
           f'<text class="label" x="{MARGIN + 16}" y="36" font-size="{FONT + 2}" '
           'font-weight="700" fill="#ffffff">Bank</text>']
    left = MARGIN + 110
    group_w = (inner - 120) / 4
    short = group_w / 3 < FONT * CHAR_W * 7.5
    for color in range(4):
        gx = left + color * group_w
        for size in range(3):
            index = color * 3 + size
            count = state.bank[index]
            cx = gx + (size + 0.5) * group_w / 3
            faded = ' opacity="0.3"' if count == 0 else ""
            heading = SIZE_HEADINGS[size][0].upper() if short else SIZE_HEADINGS[size]
            if color == 0 or not short:
                out.append(f'<text class="size-heading label" x="{cx:.1f}" y="36" '
                           f'text-anchor="middle" font-size="{FONT}" fill="#9aa4c0">'
                           f'{heading}</text>')
            out.append(f'<g class="bank-piece" data-piece="{PIECES[index].to_text()}" '
                       f'data-count="{count}"{faded}>'
                       + _pyramid(index, cx, 112, "bank")
                       + f'<text class="label" x="{cx:.1f}" y="146" text-anchor="middle" '
                       f'font-size="{FONT}" font-weight="700" fill="#e8e8e8">'
                       f'\u00d7{count}</text></g>')
    out.append("</g>")
    return "".join(out)


def _wrap(text: str, width: float, size: float) -> list[str]:
    """``text`` in lines that fit ``width`` drawing units at font ``size``."""
    most = max(8, int(width / (size * CHAR_W)))
    lines: list[str] = []
    line = ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > most:
            lines.append(line)
            line = ""
        line = f"{line} {word}" if line else word
        while len(line) > most:
            lines.append(line[:most])
            line = line[most:]
    if line:
        lines.append(line)
    return lines


def _top(state: GameState, players: Sequence[str], overlay: Overlay,
         width: float) -> tuple[str, float]:
    """The players (whose turn it is marked; none once the game is over), then the
    captions and hints, wrapped to the drawing's width. Returns the height used too."""
    out = ['<g class="top">']
    x: float = MARGIN
    y: float = 40
    size = FONT + 4
    for seat in range(state.players):
        name = players[seat] if seat < len(players) else f"seat {seat + 1}"
        colour = SEAT_COLORS[seat % len(SEAT_COLORS)]
        moving = seat == state.to_move and not state.is_over
        cls = "player to-move" if moving else "player"
        if state.eliminated[seat]:
            cls += " eliminated"
        marker = "\u25b6 " if moving else ""
        label = marker + _short(name, 24)
        w = 40 + len(label) * size * CHAR_W + 30
        if x + w > width - MARGIN and x > MARGIN:
            x, y = MARGIN, y + size + 12
        out.append(f'<g class="{cls}" data-seat="{seat}"><rect x="{x}" y="{y - 24}" '
                   f'width="28" height="28" rx="5" fill="{colour}"/><text class="label" '
                   f'x="{x + 38}" y="{y}" font-size="{size}" '
                   f'font-weight="{700 if moving else 400}" fill="{colour}">'
                   f'{esc(label)}</text></g>')
        x += w
    lines = []
    if overlay.title:
        lines.append(("title", overlay.title, "#ffffff"))
    if overlay.caption:
        lines.append(("caption", overlay.caption, "#ffe082"))
    if overlay.result:
        lines.append(("result", overlay.result, "#ffd54f"))
    if overlay.red_alert_seat is not None:
        seat = overlay.red_alert_seat
        name = players[seat] if seat < len(players) else f"seat {seat + 1}"
        lines.append(("red-alert", f"RED ALERT: {name} can lose on the next turn", "#ff5252"))
    if overlay.guidance:
        lines.append(("guidance", overlay.guidance, "#80d8ff"))
    if overlay.lifted is not None:
        seat, piece, origin = overlay.lifted
        where = f" from {origin}" if origin else ""
        also = " (or a new system)" if overlay.discover else ""
        lines.append(("lifted", f"Lifted: {piece}{where}; it may go to the marked "
                      f"systems{also}", "#b9f6ca"))
    for slot, text in overlay.mistakes:
        lines.append(("mistake", f"Mistake at {slot}: {text}", "#ff8a80"))
    y += 12
    for cls, text, colour in lines:
        for part in _wrap(text, width - 2 * MARGIN, FONT):
            y += FONT + 8
            out.append(f'<text class="{cls} label" x="{MARGIN}" y="{y}" font-size="{FONT}" '
                       f'fill="{colour}">{esc(part)}</text>')
    out.append("</g>")
    return "".join(out), y + 20


def _focus(state: GameState, overlay: Overlay) -> set[str]:
    """The systems whose connections are drawn on a crowded map: the lifted ship's
    origin, else the systems the last turn moved a ship to or discovered."""
    if overlay.lifted is not None and overlay.lifted[2]:
        return {overlay.lifted[2].casefold()}
    if overlay.story is not None:
        return {m.system.casefold() for m in overlay.story.marks
                if m.kind in ("moved-to", "discovered", "built", "homeworld")}
    return set()


def render_svg(state: GameState, *, players: Sequence[str] | None = None,
               overlay: Overlay | None = None, portrait: bool = False,
               aspect: float | None = None, with_bank: bool = True,
               with_top: bool = True) -> str:
    """The whole star map of ``state`` with the bank, as the text of an ``<svg>`` element.
    ``players`` names the seats (default "seat 1", ...); ``portrait`` lays the map out
    from top to bottom, two cards a row, for a phone held upright; ``aspect`` (width /
    height of the box it is shown in) arranges the columns and sizes the drawing to fill
    that box; ``with_bank`` False leaves the bank out (the live page shows it beside the
    map), ``with_top`` False the players and captions above the map."""
    overlay = overlay or Overlay()
    players = tuple(players or ())
    probe_w = (PORTRAIT_COLUMNS * CARD_W + (PORTRAIT_COLUMNS - 1) * PORTRAIT_GAP + MARGIN
               if portrait else MIN_WIDTH)
    top, top_h = _top(state, players, overlay, probe_w) if with_top else ("", 12.0)
    bottom_h = BANK_H if with_bank else 0.0
    placed, width, map_bottom = _layout(state, top_h, portrait, aspect, bottom_h)
    if not portrait and with_top and width != probe_w:
        top, top_h2 = _top(state, players, overlay, width)
        if top_h2 != top_h:  # a wider drawing wraps the captions in fewer lines
            top_h = top_h2
            placed, width, map_bottom = _layout(state, top_h, portrait, aspect, bottom_h)
    height = map_bottom + (BANK_H if with_bank else 0)
    x_shift = 0.0
    y_shift = 0.0
    view_w, view_h = width, height
    if aspect and not portrait:
        # Fill the box: the drawing takes the box's shape, the map centred in it.
        if view_w / view_h < aspect:
            view_w = view_h * aspect
            x_shift = (view_w - width) / 2
        else:
            view_h = view_w / aspect
            y_shift = (view_h - height) / 2
    ids = _identifiers(state.systems)
    names = ", ".join(s.name for s in state.systems) or "no systems yet"
    label = f"Star map: {names}"
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="hw-map" '
           f'viewBox="{-x_shift:.0f} {-y_shift:.0f} {view_w:.0f} {view_h:.0f}" '
           f'preserveAspectRatio="xMidYMid meet" '
           f'role="img" aria-label="{esc(label)}" data-players="{state.players}" '
           f'data-to-move="{state.to_move}" data-ply="{state.ply}" '
           'font-family="DejaVu Sans, Verdana, sans-serif">',
           f'<title>{esc(label)}</title>',
           f'<rect class="background" x="{-x_shift:.0f}" y="{-y_shift:.0f}" '
           f'width="{view_w:.0f}" height="{view_h:.0f}" fill="#0e1119"/>', top]
    if overlay.story is not None:
        out.append(f'<desc class="turn-story">{esc(overlay.story.caption)}</desc>')
    centres = {p.system.key: (p.x + CARD_W / 2, p.y + p.h / 2) for p in placed}
    out.append('<g class="connections">')
    systems = [p.system for p in placed]
    focus = None if len(systems) <= ALL_CONNECTIONS_UP_TO else _focus(state, overlay)
    for i, a in enumerate(systems):
        for b in systems[i + 1:]:
            if a.connected_to(b):
                # On a crowded map a connection away from the focus is kept (the data of
                # the map) but not shown: lines across a dozen cards only tangle.
                quiet = focus is not None and a.key not in focus and b.key not in focus
                (x1, y1), (x2, y2) = centres[a.key], centres[b.key]
                out.append(f'<line class="connection{" quiet" if quiet else ""}" '
                           f'data-a="{esc(a.name)}" '
                           f'data-b="{esc(b.name)}" x1="{x1:.1f}" y1="{y1:.1f}" '
                           f'x2="{x2:.1f}" y2="{y2:.1f}" stroke="#8a96b8" stroke-width="5" '
                           'stroke-opacity="0.7" stroke-linecap="round"'
                           + (' display="none"/>' if quiet else "/>"))
    out.append("</g>")
    if not systems:
        out.append(f'<text class="empty label" x="{width / 2:.0f}" '
                   f'y="{max(map_bottom - 120, top_h + 60):.0f}" '
                   'text-anchor="middle" font-size="34" fill="#9aa4c0">'
                   + ("Setting up: no homeworld yet" if state.in_setup else "No systems")
                   + "</text>")
    for p in placed:
        out.append(_system(p, state, players, overlay, ids[p.system.key]))
    if with_bank:
        out.append(_bank(state, width, map_bottom))
    out.append("</svg>")
    return "".join(out)
