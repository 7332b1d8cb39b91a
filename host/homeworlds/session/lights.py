"""What the LEDs show: the table's hint view at the chosen hint level, rendered and sent out.

The hint view (``hints.HintView``) is everything the renderer needs of the table at one
moment; ``TableLights.hint_view`` builds it from the session's parts, leaving out what
the admin's hint level hides, and ``show`` hands the rendered frame to the LED output
(which skips repeats and keeps to its frame rate).
"""

from __future__ import annotations

from collections.abc import Callable

from homeworlds.clock import LOW_TIME_S, GameClocks
from homeworlds.hints import GuidanceShown, HintSettings, HintView, LiftedShip, Renderer
from homeworlds.pixels import PixelOutput
from homeworlds.table.layout import Layout
from homeworlds.table.tracker import Status, TurnTracker
from homeworlds.table.view import Observation

#: How much the LEDs show (the display's admin settings): "full" (move hints and
#: warnings), "warnings" (no move hints: mistakes, Red Alert, overpopulation), "minimal"
#: (the turn bars and mistakes only).
HINT_LEVELS = ("full", "warnings", "minimal")

#: Seconds a seat's bar shows its Good/Evil alignment after the button press.
ALIGNMENT_SHOWN_S = 3.0
#: Seconds a seat's bar blinks to say that the table heard a gesture of that seat's button
#: (a declaration, Brain Transference).
ACKNOWLEDGED_S = 2.0
#: Seconds the bars of the players whose alignments an elimination revealed show them to
#: everyone (then the revealed alignments stay on the terminal and the displays).
REVEAL_SHOWN_S = 10.0


class TableLights:
    """The LEDs of one table: the hint view, its rendering, and the output it goes to."""

    def __init__(self, layout: Layout, output: PixelOutput | None,
                 hint_settings: HintSettings, clock: Callable[[], float]):
        self.layout = layout
        self.output = output
        self.hint_settings = hint_settings
        self.renderer = Renderer(layout, hint_settings)
        self.clock = clock
        #: One of HINT_LEVELS (changed from the display's admin page).
        self.hint_level = "full"
        #: The LED brightness now (the admin page may lower it below the configured one).
        self.brightness = output.correction.brightness if output is not None else None
        #: Set by the host while the game store cannot be written (an LED mark shows it).
        self.store_fault = False
        #: Good/Evil: the seat whose alignment its bar shows, and until when.
        self._alignment_shown: tuple[int, float] | None = None
        #: Good/Evil: alignments an elimination revealed (seat, alignment), and until when
        #: their bars show them.
        self._revealed_shown: tuple[tuple[tuple[int, str], ...], float] | None = None
        #: Seats whose button gesture the bars acknowledge, and until when.
        self._acknowledged: tuple[tuple[int, ...], float] | None = None

    def acknowledge(self, *seats: int) -> None:
        """The bars of ``seats`` blink fast in the seat's colour for ``ACKNOWLEDGED_S``: the
        table heard their button's gesture (a declaration, Brain Transference)."""
        self._acknowledged = (tuple(sorted(seats)), self.clock() + ACKNOWLEDGED_S)

    def _acknowledged_now(self) -> tuple[int, ...]:
        if self._acknowledged is None:
            return ()
        seats, until = self._acknowledged
        if self.clock() < until:
            return seats
        self._acknowledged = None
        return ()

    def show_revealed(self, revealed: dict[int, str]) -> None:
        """Good/Evil: the bars of the players whose alignments were revealed at the end of
        a turn show them to everyone for ``REVEAL_SHOWN_S``."""
        self._revealed_shown = (tuple(sorted(revealed.items())),
                                self.clock() + REVEAL_SHOWN_S)

    def _revealed(self) -> tuple[tuple[int, str], ...]:
        if self._revealed_shown is None:
            return ()
        shown, until = self._revealed_shown
        if self.clock() < until:
            return shown
        self._revealed_shown = None
        return ()

    def show_alignment(self, seat: int) -> None:
        """Good/Evil: ``seat``'s bar alone shows its alignment for ``ALIGNMENT_SHOWN_S``."""
        self._alignment_shown = (seat, self.clock() + ALIGNMENT_SHOWN_S)

    def _alignment(self, alignments: tuple[str, ...] | None) -> tuple[int, str] | None:
        if self._alignment_shown is None or alignments is None:
            return None
        seat, until = self._alignment_shown
        if self.clock() < until:
            return (seat, alignments[seat])
        self._alignment_shown = None
        return None

    def hint_view(self, tracker: TurnTracker, observation: Observation | None,
                  status: Status, *, clocks: GameClocks | None,
                  guidance: GuidanceShown | None, guidance_mistakes: frozenset[int],
                  link_up: bool, red_alert_seat: int | None) -> HintView:
        """The table as the LEDs show it now, at the hint level chosen."""
        obs = observation
        state = tracker.state
        system_at: dict[int, str] = {}
        lifted = None
        if obs is not None:
            system_at = {slot: name for name, slot in tracker.slot_of_system(obs).items()}
            if self.hint_level == "full":
                seat = state.to_move
                for piece in obs.in_hand:
                    kind, slot, owner = piece.origin
                    if kind == "ships" and owner is not None:
                        owner = tracker.seat_at_side(owner)
                    if kind == "ships" and owner == seat and slot in system_at:
                        lifted = LiftedShip(seat, piece.piece, slot)
                        break
        shown = self._alignment(tracker.alignments)
        clock_fraction, clock_low, flagged = None, False, frozenset[int]()
        if clocks is not None:
            now = self.clock()
            flagged = frozenset(clocks.flagged)
            mover = clocks.to_move
            if mover is not None and mover not in flagged:
                clock_fraction = clocks.fraction(mover, now)
                clock_low = clocks.running and clocks.remaining_s(mover, now) < LOW_TIME_S
        # A lower hint level shows no lifted ship (no move hints); "minimal" no Red Alert
        # either. The computer's guidance and the clocks stay.
        return HintView(
            layout=self.layout,
            game=state,
            system_at=system_at,
            active_seat=state.to_move,
            lifted=lifted,
            turn=status.partial,
            mistake_slots=status.mistake_slots | guidance_mistakes,
            guidance=guidance,
            refused_handover_seat=status.refused_seat,
            link_down=not link_up,
            red_alert_seat=None if self.hint_level == "minimal" else red_alert_seat,
            store_fault=self.store_fault,
            alignment_shown=shown,
            alignments_revealed=self._revealed(),
            acknowledged_seats=self._acknowledged_now(),
            seat_at_side=(1, 0) if tracker.sides_swapped else None,
            clock_fraction=clock_fraction,
            clock_low=clock_low,
            flagged_seats=flagged,
        )

    def render(self, view: HintView, now: float | None = None):
        return self.renderer.render(view, self.clock() if now is None else now)

    def show(self, frame) -> None:
        """Hand ``frame`` to the LED output (None: the table has no LEDs)."""
        if self.output is not None:
            self.output.submit(frame)
            self.output.poll()
