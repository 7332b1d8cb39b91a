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
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from homeworlds.display.printable import printable
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

CARD_W = 300
HEADER_H = 62
STAR_H = 104
ROW_H = 62
GAP_X = 90
GAP_Y = 36
MARGIN = 24
BANK_H = 150
#: Pyramid height and base width by size (1, 2, 3): a large piece is plainly larger.
PYRAMID_H = (0, 34, 48, 62)
PYRAMID_W = (0, 26, 36, 46)
MIN_WIDTH = 1280
PORTRAIT_MIN_WIDTH = 780


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
                        caption: str | None = None) -> str:
    """The star map of a table-feed ``snapshot`` event (its JSON form, docs/display.md):
    position, bank, players, whose turn, hints and result. InvalidNotation/ValueError for a
    position that cannot be read."""
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
    if not position and len(players) > 2:
        # The cooked text holds two seats: draw the snapshot's ``systems`` (every seat).
        state = state_from_systems(snapshot.get("systems") or (), len(players),
                                   int(game.get("to_move") or 0), snapshot.get("bank"))
        return render_svg(state, players=players, overlay=overlay, portrait=portrait)
    return render_cooked_svg(position, rules=rules,
                             to_move=int(game.get("to_move") or 0),
                             players=players or None, overlay=overlay,
                             bank=snapshot.get("bank"), portrait=portrait)


def _with_revealed(players: Sequence[str], revealed: Sequence[str | None]) -> tuple[str, ...]:
    """Good/Evil: the players' names with the alignments an elimination revealed, as the
    map shows them (``Ann (Good)``)."""
    shown = [revealed[k] if k < len(revealed) else None for k in range(len(players))]
    return tuple(f"{name} ({alignment.capitalize()})"
                 if alignment is not None and alignment in ("good", "evil") else name
                 for name, alignment in zip(players, shown, strict=True))


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
                      bank: Mapping[str, int] | None = None, portrait: bool = False) -> str:
    """``render_svg`` of a cooked position text; ``bank`` (piece text -> count, the feed's)
    replaces the one worked out from the rules' piece count."""
    state = state_from_cooked(position, rules, to_move)
    if bank is not None:
        for index, piece in enumerate(PIECES):
            if piece.to_text() in bank:
                state.bank[index] = int(bank[piece.to_text()])
    return render_svg(state, players=players, overlay=overlay, portrait=portrait)


# ---------------------------------------------------------------------- layout


@dataclass(slots=True)
class _Placed:
    system: System
    x: float
    y: float
    ships_point: tuple[int, ...] = field(default=())  # +1 right, -1 left, per seat


def _columns(state: GameState) -> list[list[System]]:
    """Columns from left to right, as the rulebook arranges the star map."""
    homes = {s.home_of: s for s in state.systems if s.home_of is not None}
    others = [s for s in state.systems if s.home_of is None]
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
    rows = max(1, math.ceil(len(others) / 3)) if others else 1
    per_column = max(rows, 2)
    columns = [others[i:i + per_column] for i in range(0, len(others), per_column)]
    return [c for c in [left_homes, *columns, right_homes] if c]


def _card_h(players: int) -> int:
    return HEADER_H + STAR_H + ROW_H * players + 12


def _layout(state: GameState, top_h: float,
            portrait: bool = False) -> tuple[list[_Placed], float, float]:
    """Each system's card position, the drawing's width and the map's bottom. Landscape:
    the rulebook's columns from left to right; portrait (a phone): the same lines from top
    to bottom, each a row."""
    lines = _columns(state)
    card_h = _card_h(state.players)
    longest = max((len(c) for c in lines), default=1)
    left_seats = {s.home_of for s in lines[0] if s.home_of is not None} if lines else set()
    point = tuple(1 if (seat in left_seats or (state.players == 2 and seat == 0)) else -1
                  for seat in range(state.players))
    placed = []
    if portrait:
        map_w = longest * CARD_W + (longest - 1) * GAP_Y
        width = max(PORTRAIT_MIN_WIDTH, map_w + 2 * MARGIN)
        y = top_h
        for line in lines:
            row_w = len(line) * CARD_W + (len(line) - 1) * GAP_Y
            x = (width - row_w) / 2
            for system in line:
                placed.append(_Placed(system, x, y, point))
                x += CARD_W + GAP_Y
            y += card_h + GAP_X * 0.6
        return placed, width, max(y, top_h + card_h) + GAP_Y * 0.4
    map_h = longest * card_h + (longest - 1) * GAP_Y
    map_w = len(lines) * CARD_W + max(0, len(lines) - 1) * GAP_X
    width = max(MIN_WIDTH, map_w + 2 * MARGIN)
    x0 = (width - map_w) / 2
    for k, column in enumerate(lines):
        col_h = len(column) * card_h + (len(column) - 1) * GAP_Y
        y = top_h + (map_h - col_h) / 2
        for system in column:
            placed.append(_Placed(system, x0 + k * (CARD_W + GAP_X), y, point))
            y += card_h + GAP_Y
    return placed, width, top_h + max(map_h, card_h) + GAP_Y


# ---------------------------------------------------------------------- drawing


def _pyramid(index: int, x: float, base_y: float, role: str, owner: int | None = None,
             direction: int = 1) -> str:
    """One piece: upright (a star) or lying with its tip towards ``direction`` (a ship).
    (x, base_y) is the middle of the base of an upright piece, the middle of a lying one."""
    piece = PIECES[index]
    size, color = int(piece.size), int(piece.color)
    h, w = PYRAMID_H[size], PYRAMID_W[size]
    if role != "ship":
        outline = [(x - w / 2, base_y), (x, base_y - h), (x + w / 2, base_y)]
        shade = [(x, base_y - h), (x + w / 2, base_y), (x + w * 0.12, base_y)]
        pips_at = [(x + (i - (size - 1) / 2) * 7, base_y - 6) for i in range(size)]
    else:
        tip = x + direction * h / 2
        back = x - direction * h / 2
        outline = [(back, base_y - w / 2), (tip, base_y), (back, base_y + w / 2)]
        shade = [(tip, base_y), (back, base_y + w / 2), (back, base_y + w * 0.12)]
        pips_at = [(back + direction * 6, base_y + (i - (size - 1) / 2) * 7)
                   for i in range(size)]
    owner_attr = "" if owner is None else f' data-owner="{owner}"'
    name = f"{COLOR_NAMES[color]} {size} {role}"
    pips = "".join(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="2.2" class="pip"/>'
                   for px, py in pips_at)
    return (f'<g class="piece {role} {COLOR_NAMES[color]}" data-piece="{piece.to_text()}" '
            f'data-role="{role}"{owner_attr}><title>{name}</title>'
            f'<polygon points="{_points(outline)}" fill="{COLOR_FILL[color]}" '
            f'stroke="#0b0d12" stroke-width="1.5"/>'
            f'<polygon points="{_points(shade)}" fill="{COLOR_SHADE[color]}"/>{pips}</g>')


def _points(points: Iterable[tuple[float, float]]) -> str:
    return " ".join(f"{px:.1f},{py:.1f}" for px, py in points)


def _row(indices: list[int], centre_x: float, y: float, role: str, owner: int | None,
         direction: int, room: float) -> str:
    """Pieces side by side around ``centre_x``; a row too long for ``room`` is squeezed."""
    if not indices:
        return ""
    widths = [(PYRAMID_W if role == "star" else PYRAMID_H)[int(PIECES[i].size)]
              for i in indices]
    gap = 8
    total = sum(widths) + gap * (len(widths) - 1)
    scale = min(1.0, room / total)
    x = -total / 2
    parts = []
    for index, w in zip(indices, widths, strict=True):
        parts.append(_pyramid(index, x + w / 2, 0, role, owner, direction))
        x += w + gap
    return (f'<g transform="translate({centre_x:.1f},{y:.1f}) scale({scale:.3f})">'
            + "".join(parts) + "</g>")


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
    card_h = _card_h(state.players)
    stars = "".join(PIECES[i].to_text() for i in sorted(s.stars))
    home_attr = "" if s.home_of is None else f' data-home-of="{s.home_of}"'
    border = SEAT_COLORS[s.home_of % len(SEAT_COLORS)] if s.home_of is not None else "#4a5470"
    out = [f'<g id="{ident}" class="{" ".join(classes)}" data-system="{esc(s.name)}"'
           f'{home_attr} data-stars="{stars}" transform="translate({placed.x:.1f},'
           f'{placed.y:.1f})">']
    out.append(f'<rect class="card" x="0" y="0" width="{CARD_W}" height="{card_h}" rx="16" '
               f'fill="#1b2030" stroke="{border}" '
               f'stroke-width="{6 if s.home_of is not None else 2}"/>')
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
    if s.home_of is not None:
        owner = players[s.home_of] if s.home_of < len(players) else f"seat {s.home_of + 1}"
        out.append(f'<text class="home-label" x="16" y="54" font-size="17" '
                   f'fill="{border}">\u2302 home of {esc(_short(owner, 20))}</text>')
    out.append(f'<text class="system-name" x="16" y="31" font-size="24" font-weight="700" '
               f'fill="#ffffff">{esc(_short(s.name, 19))}</text>')
    if over_colors or key in overlay.overpopulated:
        words = ", ".join(over_colors) if over_colors else "overpopulated"
        out.append(f'<g class="overpopulation" data-colors="{esc(" ".join(over_colors))}">'
                   f'<rect x="8" y="{HEADER_H}" width="{CARD_W - 16}" height="24" rx="6" '
                   f'fill="#b71c1c"/><text x="{CARD_W / 2}" y="{HEADER_H + 18}" '
                   f'text-anchor="middle" font-size="16" fill="#fff">'
                   f'overpopulated: {esc(words)}</text></g>')
    star_indices = sorted(s.stars, key=lambda i: (-(i % 3), i))
    out.append('<g class="stars">' + _row(star_indices, CARD_W / 2, HEADER_H + STAR_H - 14,
                                           "star", None, 1, CARD_W - 40) + "</g>")
    for seat in range(state.players):
        y = HEADER_H + STAR_H + ROW_H * seat
        fleet = [i for i in range(12) for _ in range(s.ships[seat][i])]
        colour = SEAT_COLORS[seat % len(SEAT_COLORS)]
        name = _short(players[seat] if seat < len(players) else f"seat {seat + 1}", 16)
        ships = "".join(PIECES[i].to_text() for i in fleet)
        out.append(f'<g class="fleet" data-owner="{seat}" data-ships="{ships}">')
        if fleet:
            out.append(f'<rect class="band" x="8" y="{y}" width="{CARD_W - 16}" '
                       f'height="{ROW_H - 6}" rx="10" fill="{colour}" fill-opacity="0.16" '
                       f'stroke="{colour}" stroke-width="2"/>'
                       f'<text class="owner" x="16" y="{y + 18}" font-size="14" '
                       f'fill="{colour}">{esc(name)}</text>')
            out.append(_row(fleet, CARD_W / 2 + 20, y + ROW_H / 2, "ship", seat,
                            placed.ships_point[seat], CARD_W - 90))
        out.append("</g>")
    out.append("</g>")
    return "".join(out)


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


def _bank(state: GameState, width: float, y: float) -> str:
    out = [f'<g class="bank" transform="translate(0,{y:.1f})">'
           f'<rect x="{MARGIN}" y="0" width="{width - 2 * MARGIN}" height="{BANK_H - 16}" '
           'rx="16" fill="#151925" stroke="#4a5470" stroke-width="2"/>'
           f'<text x="{MARGIN + 20}" y="34" font-size="24" font-weight="700" '
           'fill="#ffffff">Bank</text>']
    group_w = (width - 2 * MARGIN - 140) / 4
    for color in range(4):
        gx = MARGIN + 130 + color * group_w
        for size in range(3):
            index = color * 3 + size
            count = state.bank[index]
            cx = gx + (size + 0.5) * group_w / 3
            faded = ' opacity="0.25"' if count == 0 else ""
            out.append(f'<g class="bank-piece" data-piece="{PIECES[index].to_text()}" '
                       f'data-count="{count}"{faded}>'
                       + _pyramid(index, cx, 88, "bank")
                       + f'<text x="{cx:.1f}" y="118" text-anchor="middle" font-size="22" '
                       f'font-weight="700" fill="#e8e8e8">\u00d7{count}</text></g>')
    out.append("</g>")
    return "".join(out)


def _top(state: GameState, players: Sequence[str],
         overlay: Overlay) -> tuple[str, list[tuple[str, str, str]], float]:
    """The players (whose turn it is marked), then up to three lines of captions and
    hints; the lines past those go under the map. Returns the height used too."""
    out = ['<g class="top">']
    x = MARGIN
    for seat in range(state.players):
        name = players[seat] if seat < len(players) else f"seat {seat + 1}"
        colour = SEAT_COLORS[seat % len(SEAT_COLORS)]
        moving = seat == state.to_move and not state.is_over
        cls = "player to-move" if moving else "player"
        if state.eliminated[seat]:
            cls += " eliminated"
        marker = "\u25b6 " if moving else ""
        out.append(f'<g class="{cls}" data-seat="{seat}"><rect x="{x}" y="14" width="24" '
                   f'height="24" rx="5" fill="{colour}"/><text x="{x + 32}" y="34" '
                   f'font-size="24" font-weight="{700 if moving else 400}" fill="{colour}">'
                   f'{marker}{esc(name)}</text></g>')
        x += 48 + 14 * min(len(name) + len(marker), 24) + 24
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
    y = 66
    for cls, text, colour in lines[:3]:
        out.append(f'<text class="{cls}" x="{MARGIN}" y="{y}" font-size="22" '
                   f'fill="{colour}">{esc(text)}</text>')
        y += 26
    extra = lines[3:]
    out.append("</g>")
    return "".join(out), extra, y + 14


def render_svg(state: GameState, *, players: Sequence[str] | None = None,
               overlay: Overlay | None = None, portrait: bool = False) -> str:
    """The whole star map of ``state`` with the bank, as the text of an ``<svg>`` element.
    ``players`` names the seats (default "seat 1", ...); ``portrait`` lays the map out
    from top to bottom, for a phone held upright."""
    overlay = overlay or Overlay()
    players = tuple(players or ())
    top, extra, top_h = _top(state, players, overlay)
    placed, width, map_bottom = _layout(state, top_h, portrait)
    extra_h = 28 * len(extra)
    height = map_bottom + extra_h + BANK_H
    ids = _identifiers(state.systems)
    names = ", ".join(s.name for s in state.systems) or "no systems yet"
    label = f"Star map: {names}"
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="hw-map" '
           f'viewBox="0 0 {width:.0f} {height:.0f}" preserveAspectRatio="xMidYMid meet" '
           f'role="img" aria-label="{esc(label)}" data-players="{state.players}" '
           f'data-to-move="{state.to_move}" data-ply="{state.ply}" '
           'font-family="DejaVu Sans, Verdana, sans-serif">',
           f'<title>{esc(label)}</title>',
           f'<rect class="background" x="0" y="0" width="{width:.0f}" height="{height:.0f}" '
           'fill="#0e1119"/>', top]
    centres = {p.system.key: (p.x + CARD_W / 2, p.y + _card_h(state.players) / 2)
               for p in placed}
    out.append('<g class="connections">')
    systems = [p.system for p in placed]
    for i, a in enumerate(systems):
        for b in systems[i + 1:]:
            if a.connected_to(b):
                (x1, y1), (x2, y2) = centres[a.key], centres[b.key]
                out.append(f'<line class="connection" data-a="{esc(a.name)}" '
                           f'data-b="{esc(b.name)}" x1="{x1:.1f}" y1="{y1:.1f}" '
                           f'x2="{x2:.1f}" y2="{y2:.1f}" stroke="#8a96b8" stroke-width="5" '
                           'stroke-opacity="0.7" stroke-linecap="round"/>')
    out.append("</g>")
    if not systems:
        out.append(f'<text class="empty" x="{width / 2:.0f}" y="{map_bottom - 120:.0f}" '
                   'text-anchor="middle" font-size="34" fill="#9aa4c0">'
                   + ("Setting up: no homeworld yet" if state.in_setup else "No systems")
                   + "</text>")
    for p in placed:
        out.append(_system(p, state, players, overlay, ids[p.system.key]))
    y = map_bottom
    for cls, text, colour in extra:
        out.append(f'<text class="{cls}" x="{MARGIN}" y="{y + 20:.0f}" font-size="22" '
                   f'fill="{colour}">{esc(text)}</text>')
        y += 28
    out.append(_bank(state, width, y))
    out.append("</svg>")
    return "".join(out)
