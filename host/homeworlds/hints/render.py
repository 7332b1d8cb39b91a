"""The hint renderer: (view, settings, time) -> one colour per pixel of the strip.

Per slot the highest of these wins: a mistake (blinking red), an
overpopulation (pulsing in the overpopulated colour), a move hint (while a
ship is lifted: the origin's spinner, connected systems, empty slots where a
new star could go), the idle ring (star arcs, home marks). Bars: link down
(amber on all), a refused hand-over (blinking red), the result (rainbow),
Red Alert (double red flash), whose turn it is (the player's colour; with a game clock
only the share of the main time left, blinking in the last minute), a fallen flag (the
bar's last LED red).
docs/leds.md has the legend.

Speed: a :class:`Renderer` precomputes, per layout, how to write each ring and
bar (a slice assignment when its pixels are a run of the chain) and caches the
static ring patterns, so a frame costs a few list operations per slot rather
than Python work per pixel. :func:`render` keeps one renderer per (layout,
settings) for callers that do not hold one.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from homeworlds.hints.animation import (
    blink_on,
    heartbeat_on,
    pulse_level,
    rainbow,
    scale,
    spinner_head,
)
from homeworlds.hints.patterns import dashed, size_marks, solid, spinner, split, star_arcs
from homeworlds.hints.settings import HintSettings
from homeworlds.hints.view import HintView
from homeworlds.pixels import BLACK, RGB, Frame
from homeworlds.rules import Discover, GameState, Move, System, legal_actions
from homeworlds.table.layout import Layout

_YELLOW = 1
_CACHE_LIMIT = 4096


class _Run:
    """How to write a pattern onto one ring or bar: by slice when its pixels are a
    forward or backward run of the chain, pixel by pixel otherwise."""

    __slots__ = ("pixels", "length", "start", "stop", "mode")

    def __init__(self, pixels: tuple[int, ...]):
        self.pixels = pixels
        self.length = n = len(pixels)
        first = pixels[0]
        if pixels == tuple(range(first, first + n)):
            self.mode, self.start, self.stop = 1, first, first + n
        elif pixels == tuple(range(first, first - n, -1)):
            self.mode, self.start, self.stop = -1, first - n + 1, first + 1
        else:
            self.mode, self.start, self.stop = 0, 0, 0

    def write(self, px: list[RGB], pattern: Sequence[RGB]) -> None:
        if self.mode == 1:
            px[self.start:self.stop] = pattern
        elif self.mode == -1:
            px[self.start:self.stop] = pattern[::-1]
        else:
            for i, color in zip(self.pixels, pattern, strict=True):
                px[i] = color


class Renderer:
    """Renders frames for one layout with one settings value (tables built once)."""

    def __init__(self, layout: Layout, settings: HintSettings | None = None):
        self.layout = layout
        self.settings = s = settings if settings is not None else HintSettings()
        self._blank = [BLACK] * layout.pixel_count
        self._rings = tuple(_Run(slot.ring) for slot in layout.slots)
        self._bars = tuple(_Run(seat.bar) for seat in layout.seats)
        self._star_idle = tuple(scale(c, s.idle) for c in s.star_colors)
        self._hint_bright = scale(s.hint_color, s.bright)
        self._hint_dim = scale(s.hint_color, s.dim)
        self._mistake = scale(s.mistake_color, s.bright)
        self._alert = scale(s.alert_color, s.bright)
        self._idle_cache: dict[tuple, tuple[RGB, ...]] = {}
        self._fixed_cache: dict[tuple, tuple[RGB, ...]] = {}

    # ------------------------------------------------------------------ frame

    def render(self, view: HintView, now: float) -> Frame:
        """The frame for ``view`` at time ``now`` (seconds); pure: same input, same frame."""
        if view.layout is not self.layout and view.layout != self.layout:
            raise ValueError(f"this renderer was built for layout {self.layout.name!r}, "
                             f"the view is of layout {view.layout.name!r}")
        px = self._blank.copy()
        seat_colors = self._seat_colors(view)
        self._render_rings(px, view, now, seat_colors)
        self._render_bars(px, view, now, seat_colors)
        if view.flagged_seats:
            self._render_flags(px, view)
        if view.store_fault:
            # Not saved: the first LED of every bar blinks amber until the store is back.
            mark = scale(self.settings.link_down_color, self.settings.bright) \
                if blink_on(now, self.settings.blink_period) else BLACK
            for run in self._bars:
                px[run.pixels[0]] = mark
        return tuple(px)

    def _render_flags(self, px: list[RGB], view: HintView) -> None:
        """A fallen flag: the last LED of the seat's bar steady red, over the bar."""
        mark = scale(self.settings.mistake_color, self.settings.bar)
        for seat in view.flagged_seats:
            side = view.seat_at_side.index(seat) if view.seat_at_side is not None \
                and seat in view.seat_at_side else seat
            px[self._bars[side].pixels[-1]] = mark

    def _seat_colors(self, view: HintView) -> tuple[RGB, ...]:
        s = self.settings
        own = view.seat_colors or ()
        return tuple(own[seat] if seat < len(own) else s.seat_color(seat)
                     for seat in range(len(self._bars)))

    # ------------------------------------------------------------------ rings

    def _render_rings(self, px: list[RGB], view: HintView, now: float,
                      seat_colors: tuple[RGB, ...]) -> None:
        s = self.settings
        rings = self._rings
        mistakes = view.mistake_slots
        if mistakes and blink_on(now, s.blink_period):
            for slot in mistakes:
                run = rings[slot]
                run.write(px, self._fixed("solid", run.length, self._mistake))
        position = view.position
        if position is None:
            if view.guidance is not None and view.guidance.phase == "guiding":
                for slot, pattern in self._guidance_hints(view, now).items():
                    if slot not in mistakes or not blink_on(now, s.blink_period):
                        rings[slot].write(px, pattern)
            return
        slot_system: list[System | None] = [None] * len(rings)
        occupied = [False] * len(rings)
        by_key = {system.key: system for system in position.systems}
        for slot, name in view.system_at.items():
            occupied[slot] = True
            slot_system[slot] = by_key.get(name.casefold())
        guiding = view.guidance is not None and view.guidance.phase == "guiding"
        hints: dict[int, tuple[RGB, ...]] | None
        if guiding:
            hints = self._guidance_hints(view, now)
        else:
            hints = (self._move_hints(view, position, slot_system, occupied, now)
                     if view.lifted is not None else None)
        for slot, run in enumerate(rings):
            hint = hints.get(slot) if hints is not None else None
            ring = self._ring_pattern(slot in mistakes, run.length, slot_system[slot], hint,
                                      guiding, now, seat_colors)
            if ring is not None:
                run.write(px, ring)

    def _ring_pattern(self, mistaken: bool, length: int, system: System | None,
                      hint: tuple[RGB, ...] | None, guiding: bool, now: float,
                      seat_colors: tuple[RGB, ...]) -> tuple[RGB, ...] | None:
        """What one ring shows, by precedence: a mistake's blink, the guided step, an
        overpopulation's pulse, a lifted ship's hint, the system at rest (None: leave it)."""
        s = self.settings
        if mistaken:
            if guiding and hint is not None and not blink_on(now, s.blink_period):
                return hint  # a correction: between the red blinks, the piece to take away
            return None  # drawn by _render_rings, or dark in the blink's off half
        if guiding and hint is not None:
            return hint  # the step to do wins over an overpopulation
        if system is not None:
            over = system.overpopulated_colors()
            if over:
                pulse = pulse_level(now, s.pulse_period, s.pulse_low * s.bright, s.bright)
                return split(length, [scale(s.star_colors[c], pulse) for c in over])
        if hint is not None:
            return hint
        if system is not None:
            return self._idle(length, system, seat_colors)
        return None

    def _idle(self, length: int, system: System, seat_colors: tuple[RGB, ...]
              ) -> tuple[RGB, ...]:
        # Smaller star first, so a home reads the same however its stars were listed.
        stars = tuple(sorted(system.stars, key=lambda i: (i % 3, i)))
        owner = system.home_of
        mark = (scale(seat_colors[owner], self.settings.idle)
                if owner is not None and owner < len(seat_colors) else None)
        key = (length, stars, mark)
        pattern = self._idle_cache.get(key)
        if pattern is None:
            if len(self._idle_cache) > _CACHE_LIMIT:
                self._idle_cache.clear()
            pattern = star_arcs(length, stars, self._star_idle, mark)
            self._idle_cache[key] = pattern
        return pattern

    def _fixed(self, kind: str, length: int, color: RGB) -> tuple[RGB, ...]:
        key = (kind, length, color)
        pattern = self._fixed_cache.get(key)
        if pattern is None:
            if len(self._fixed_cache) > _CACHE_LIMIT:
                self._fixed_cache.clear()
            pattern = solid(length, color) if kind == "solid" else dashed(length, color)
            self._fixed_cache[key] = pattern
        return pattern

    def _move_hints(self, view: HintView, position: GameState,
                    slot_system: list[System | None], occupied: list[bool], now: float
                    ) -> dict[int, tuple[RGB, ...]]:
        """Patterns of the slots the lifted ship concerns: origin, destinations, empty slots."""
        s = self.settings
        lifted = view.lifted
        assert lifted is not None
        origin_slot = lifted.origin_slot
        length = self._rings[origin_slot].length
        hints = {origin_slot: spinner(length, spinner_head(now, s.spin_period, length),
                                      s.star_colors[lifted.piece.color], s.bright)}
        origin = slot_system[origin_slot]
        if origin is None:
            return hints  # the slot's system is unknown: nothing to measure connections by
        sizes = origin.star_sizes()
        may_move, may_discover = self._permissions(view, position, origin)
        bank = position.bank
        discoverable = any(bank[i] for i in range(12) if i % 3 not in sizes)
        for slot, system in enumerate(slot_system):
            if slot == origin_slot:
                continue
            run = self._rings[slot]
            if system is not None:
                if system is not origin and not (sizes & system.star_sizes()):
                    color = self._hint_bright if may_move(system) else self._hint_dim
                    hints[slot] = self._fixed("solid", run.length, color)
            elif not occupied[slot] and discoverable:
                color = self._hint_bright if may_discover else self._hint_dim
                hints[slot] = self._fixed("dashed", run.length, color)
        return hints

    def _guidance_hints(self, view: HintView, now: float) -> dict[int, tuple[RGB, ...]]:
        """The current step of the computer's turn (or of a hint): the piece to lift (its
        colour, its size as marks, turning), where it goes (the guide colour breathing;
        from the bank: the piece's marks on it; a new system: the star's colour)."""
        s = self.settings
        shown = view.guidance
        assert shown is not None
        guide = s.suggestion_color if shown.suggestion else s.guide_color
        level = pulse_level(now, s.pulse_period, s.pulse_low * s.bright, s.bright)
        hints: dict[int, tuple[RGB, ...]] = {}
        piece = shown.piece
        if piece is None:
            return hints
        color = s.star_colors[int(piece.color)]
        size = int(piece.size)
        if shown.lift_slot is not None:
            length = self._rings[shown.lift_slot].length
            # A hint always shows its colour; the computer's own turn shows it behind a
            # piece that goes back to the bank.
            background = scale(guide, s.dim) if shown.kind == "to-bank" or shown.suggestion \
                else BLACK
            hints[shown.lift_slot] = size_marks(length, size, scale(color, s.bright),
                                                spinner_head(now, s.spin_period, length),
                                                background)
        if shown.put_slot is not None and shown.put_slot == shown.lift_slot:
            # A capture: the ship turns round on its own slot; its marks turn on the
            # breathing guide colour.
            length = self._rings[shown.put_slot].length
            hints[shown.put_slot] = size_marks(length, size, scale(color, s.bright),
                                               spinner_head(now, s.spin_period, length),
                                               scale(guide, level))
        elif shown.put_slot is not None:
            length = self._rings[shown.put_slot].length
            if shown.new_system:
                hints[shown.put_slot] = size_marks(length, size, scale(color, level), 0,
                                                   scale(guide if shown.suggestion else color,
                                                         s.dim * level))
            elif shown.from_bank:
                hints[shown.put_slot] = size_marks(length, size, scale(color, s.bright), 0,
                                                   scale(guide, level))
            else:
                hints[shown.put_slot] = solid(length, scale(guide, level))
        return hints

    def _permissions(self, view: HintView, position: GameState, origin: System
                     ) -> tuple[Callable[[System], bool], bool]:
        """(may the lifted ship move to this system now?, may it discover a new one now?)"""
        lifted = view.lifted
        assert lifted is not None
        if view.moves_available_now is not None:
            allowed = view.moves_available_now
            return (lambda _system: allowed), allowed
        turn = view.turn
        if turn is not None:
            if turn.seat != lifted.seat:
                return (lambda _system: False), False
            destinations: set[str] = set()
            discover = False
            # The rules know the whole story: the turn's free action, a pending yellow
            # sacrifice, catastrophe timing, a home that must not be emptied.
            for action in legal_actions(turn, kinds=(Move, Discover), system=origin.name):
                if not isinstance(action, Move | Discover) or action.piece != lifted.piece:
                    continue
                if type(action) is Move:
                    destinations.add(action.destination.casefold())
                else:
                    discover = True
            return (lambda system: system.key in destinations), discover
        allowed = (position.result is None
                   and (view.active_seat is None or view.active_seat == lifted.seat)
                   and origin.has_access(lifted.seat, _YELLOW))
        return (lambda _system: allowed), allowed

    # ------------------------------------------------------------------ bars

    def _render_bars(self, px: list[RGB], view: HintView, now: float,
                     seat_colors: tuple[RGB, ...]) -> None:
        s = self.settings
        bars = self._bars
        if view.link_down:
            amber = scale(s.link_down_color,
                          pulse_level(now, s.link_down_period, s.pulse_low * s.bar, s.bar))
            for run in bars:
                run.write(px, solid(run.length, amber))
            return
        sides = view.seat_at_side
        for side, run in enumerate(bars):
            # After Brain Transference a side's bar is its new occupant's.
            seat = sides[side] if sides is not None and side < len(sides) else side
            pattern = self._bar_pattern(seat, run.length, view, now, seat_colors)
            if pattern is not None:
                run.write(px, pattern)

    def _bar_pattern(self, seat: int, length: int, view: HintView, now: float,
                     seat_colors: tuple[RGB, ...]) -> tuple[RGB, ...] | None:
        """What one seat's bar shows, by precedence: the computer thinking (or a seat played
        elsewhere waiting for its turn), the guided step's blink, an alignment, a refused
        handover, the result, the red alert, the active seat's clock (None: leave it
        dark)."""
        s = self.settings
        shown = view.guidance
        if shown is not None and shown.phase == "thinking" and seat == shown.seat:
            if shown.played_from is not None and not shown.suggestion:
                return self._waiting(seat, length, view, now, seat_colors)
            color = s.suggestion_color if shown.suggestion else seat_colors[seat]
            return spinner(length, spinner_head(now, s.think_period, length), color, s.bar)
        if shown is not None and shown.token_seat == seat and shown.phase == "guiding":
            if not blink_on(now, 2 * s.blink_period):
                return None
            return self._fixed("solid", length, scale(
                s.suggestion_color if shown.suggestion else s.guide_color, s.bar))
        if view.alignment_shown is not None and seat == view.alignment_shown[0]:
            return self._fixed("solid", length,
                               scale(ALIGNMENT_COLORS[view.alignment_shown[1]], s.bar))
        if seat in view.acknowledged_seats or seat in dict(view.alignments_revealed):
            return self._heard_or_revealed(seat, length, view, now, seat_colors)
        if seat == view.refused_handover_seat:
            return self._fixed("solid", length, self._mistake) \
                if blink_on(now, s.blink_period) else None
        outcome = view.outcome
        if outcome is not None:
            if outcome.is_draw or seat in outcome.winners:
                return rainbow(now, s.celebrate_period, length, s.bright)
            return None
        if s.red_alert and seat == view.red_alert_seat and heartbeat_on(now, s.alert_period):
            return self._fixed("solid", length, self._alert)
        if seat != view.active_seat:
            return None
        color = scale(seat_colors[seat], s.bar)
        if view.clock_fraction is None:
            return self._fixed("solid", length, color)
        if not view.clock_low or blink_on(now, s.clock_period):
            return self._gauge(length, view.clock_fraction, color)
        return None

    def _waiting(self, seat: int, length: int, view: HintView, now: float,
                 seat_colors: tuple[RGB, ...]) -> tuple[RGB, ...]:
        """A seat played elsewhere whose turn is awaited: its whose-turn bar (with a game
        clock, the share of the main time left) breathes slowly in the seat's colour —
        not the computer's comet: nobody at this table is thinking."""
        s = self.settings
        color = scale(seat_colors[seat], pulse_level(now, s.wait_period, s.pulse_low * s.bar,
                                                     s.bar))
        if view.clock_fraction is None or seat != view.active_seat:
            return solid(length, color)
        lit = min(length, max(1 if view.clock_fraction > 0 else 0,
                              math.ceil(view.clock_fraction * length - 1e-9)))
        return (color,) * lit + (BLACK,) * (length - lit)

    def _heard_or_revealed(self, seat: int, length: int, view: HintView, now: float,
                           seat_colors: tuple[RGB, ...]) -> tuple[RGB, ...] | None:
        """A seat whose button gesture the table heard (a declaration, Brain Transference):
        a fast blink in the seat's colour. Else a seat whose alignment an elimination
        revealed to everyone: the card's colour, blinking so that it is not taken for a
        player's own secret look at it."""
        s = self.settings
        if seat in view.acknowledged_seats:
            if not blink_on(now, s.blink_period / 2):
                return None
            return self._fixed("solid", length, scale(seat_colors[seat], s.bright))
        if not blink_on(now, s.blink_period):
            return None
        return self._fixed("solid", length,
                           scale(ALIGNMENT_COLORS[dict(view.alignments_revealed)[seat]], s.bar))

    def _gauge(self, length: int, fraction: float, color: RGB) -> tuple[RGB, ...]:
        """A clock's bar: the share of the main time left lit from the bar's start (at
        least one LED while any time is left, so whose turn it is stays visible)."""
        lit = min(length, max(1 if fraction > 0 else 0, math.ceil(fraction * length - 1e-9)))
        key = ("gauge", length, color, lit)
        pattern = self._fixed_cache.get(key)
        if pattern is None:
            if len(self._fixed_cache) > _CACHE_LIMIT:
                self._fixed_cache.clear()
            pattern = (color,) * lit + (BLACK,) * (length - lit)
            self._fixed_cache[key] = pattern
        return pattern


#: A seat's secret Good/Evil alignment on its own bar (docs/leds.md): white for Good,
#: violet for Evil — neither is a player colour, nor the mistake or alert red.
ALIGNMENT_COLORS: dict[str, RGB] = {"good": (255, 255, 255), "evil": (150, 0, 255)}


_RENDERERS: dict[tuple[int, HintSettings], tuple[Layout, Renderer]] = {}


def renderer_for(layout: Layout, settings: HintSettings) -> Renderer:
    """A shared renderer for ``layout`` and ``settings`` (built on first use)."""
    key = (id(layout), settings)
    hit = _RENDERERS.get(key)
    if hit is not None and hit[0] is layout:
        return hit[1]
    renderer = Renderer(layout, settings)
    if len(_RENDERERS) >= 16:
        _RENDERERS.clear()
    _RENDERERS[key] = (layout, renderer)  # keeping the layout keeps its id() unique
    return renderer


def render(view: HintView, settings: HintSettings, now: float) -> Frame:
    """The LED frame for ``view`` at time ``now`` (seconds, any clock): one ``(r, g, b)``
    per pixel index of ``view.layout``'s strip. Pure: no I/O, the view is not changed."""
    return renderer_for(view.layout, settings).render(view, now)
