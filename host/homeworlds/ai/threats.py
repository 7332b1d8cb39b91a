"""What threatens, in a two-player position: for spectators and for the computer.

``find_threats(state, players)`` is a pure function of a position (and of a time limit for
its one costly question) returning ``Threat`` values with a sentence each
(docs/analysis.md):

- ``win-in-one``: the player to move has a turn that eliminates the other at once;
- ``forced-win``: the player to move has a turn after which every reply leaves a
  win-in-one (a forced win in two), when one is found within the time limit;
- ``home-in-danger``: a home that one catastrophe would take (every star, or every ship
  of its owner, of one colour) with that colour one or two pieces short of four;
- ``overpopulation``: a colour one piece short of four in a system (or already four).

``forced_win_in_two`` is the search behind the second, which the computer's top level
asks too (``ai.search``): for each turn of the player to move it first asks whether the
mover, moving again at once, could then win (a "null move": when passing is legal the
opponent can answer with a pass, so a turn without that threat cannot win by force), and
only then goes through every reply.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from homeworlds.ai.wins import immediate_win, lost_homes
from homeworlds.notation import format_sdg_action
from homeworlds.rules import (
    OVERPOPULATION,
    GameState,
    InvalidNotation,
    SearchInterrupted,
    Successor,
    Turn,
    canonical_key,
    layout_for,
    successors,
)

KINDS = ("win-in-one", "forced-win", "home-in-danger", "overpopulation")
#: By colour index (``rules.Color``: red, yellow, green, blue).
COLOR_WORDS = ("red", "yellow", "green", "blue")


@dataclass(frozen=True, slots=True)
class Threat:
    """One threat. ``seat``: who can carry it out (win-in-one, forced-win) or whom it
    endangers (home-in-danger: the home's owner; overpopulation: None, anyone may
    declare). ``systems``: where it is, for the map. ``turn``: the turn that carries it
    out, when one is known."""

    kind: str
    seat: int | None
    words: str
    systems: tuple[str, ...] = ()
    turn: Turn | None = None
    turn_text: str | None = None

    def to_json(self) -> dict:
        return {"kind": self.kind, "seat": self.seat, "words": self.words,
                "systems": list(self.systems), "turn": self.turn_text}


def turn_words(turn: Turn, players: Sequence[str]) -> str:
    """A turn in SDG's words, actions joined by "; "."""
    parts = []
    for action in turn:
        try:
            parts.append(format_sdg_action(action, players=players))
        except (InvalidNotation, TypeError):
            parts.append(str(action))
    return "; ".join(parts)


def _name(players: Sequence[str], seat: int) -> str:
    return players[seat] if 0 <= seat < len(players) else f"Player {seat + 1}"


def find_threats(state: GameState, players: Sequence[str] | None = None, *,
                 forced_time: float | None = 1.0,
                 clock: Callable[[], float] = time.monotonic) -> tuple[Threat, ...]:
    """The position's threats, most urgent first (see the module doc). ``players``: the
    seats' names for the sentences. ``forced_time``: seconds the forced-win search may
    take (0: not looked for; None: no limit, the same answer on any machine). The
    win-in-one search has no limit (milliseconds even in busy positions)."""
    if state.players != 2 or state.in_setup or state.result is not None:
        return ()
    names = tuple(players) if players else ("Player 1", "Player 2")
    me = state.to_move
    found: list[Threat] = []
    win = immediate_win(state)
    home = state.home_of(1 - me)
    if win is not None:
        said = turn_words(win, names)
        found.append(Threat("win-in-one", me, f"{_name(names, me)} can win this turn: {said}",
                            (home.name,) if home is not None else (), win, said))
    elif forced_time is None or forced_time > 0:
        if forced_time is None:
            forced = forced_win_in_two(state)
        else:
            deadline = clock() + forced_time
            forced = _bounded(lambda stop: forced_win_in_two(state, should_stop=stop),
                              lambda: clock() > deadline)
        if forced is not None:
            said = turn_words(forced, names)
            found.append(Threat(
                "forced-win", me, f"{_name(names, me)} has a forced win: after {said}, "
                f"every reply leaves {_name(names, me)} a winning turn",
                (home.name,) if home is not None else (), forced, said))
    found.extend(homes_in_danger(state, names))
    found.extend(overpopulation_near(state))
    return tuple(found)


def _bounded(search: Callable[[Callable[[], bool]], Turn | None],
             stop: Callable[[], bool]) -> Turn | None:
    try:
        return search(stop)
    except SearchInterrupted:
        return None


def homes_in_danger(state: GameState, players: Sequence[str]) -> list[Threat]:
    """Homes that one catastrophe would take, its colour at most two pieces short."""
    out = []
    for seat in range(state.players):
        home = state.home_of(seat)
        if home is None:
            continue
        star_colors = {piece // 3 for piece in home.stars}
        ship_colors = {k // 3 for k, n in enumerate(home.ships[seat]) if n}
        for color in range(4):
            takes_stars = star_colors == {color}
            takes_ships = ship_colors == {color}
            if not (takes_stars or takes_ships):
                continue
            short = max(0, OVERPOPULATION - home.count_color(color))
            if short > 2:
                continue
            what = "every star" if takes_stars else f"every ship of {_name(players, seat)}"
            word = COLOR_WORDS[color]
            if short == 0:
                when = f"{word} is overpopulated there now"
            else:
                pieces = "one more piece" if short == 1 else "two more pieces"
                when = f"{pieces} of {word} there would overpopulate it"
            out.append(Threat("home-in-danger", seat,
                              f"{_name(players, seat)}'s home {home.name} is one {word} "
                              f"catastrophe from falling ({what} is {word}); {when}",
                              (home.name,)))
    return out


def overpopulation_near(state: GameState) -> list[Threat]:
    """Systems with a colour one piece short of four, or at four already."""
    out = []
    for system in state.systems:
        for color in range(4):
            n = system.count_color(color)
            if n < OVERPOPULATION - 1:
                continue
            word = COLOR_WORDS[color]
            if n >= OVERPOPULATION:
                words = (f"{system.name}: {n} {word} pieces — overpopulated, a {word} "
                         "catastrophe can be declared")
            else:
                words = (f"{system.name}: {n} {word} pieces — one more and a {word} "
                         "catastrophe can be declared")
            out.append(Threat("overpopulation", None, words, (system.name,)))
    return out


def forced_win_in_two(state: GameState, candidates: Iterable[Successor] | None = None, *,
                      should_stop: Callable[[], bool] | None = None) -> Turn | None:
    """A turn of the player to move, not itself a win, after which every reply of the
    opponent leaves the mover a win-in-one (and none wins for the opponent); None when
    there is none among ``candidates`` (default: every successor). ``should_stop``: asked
    as it goes; when it returns True, ``SearchInterrupted`` is raised."""
    if state.players != 2 or state.in_setup or state.result is not None:
        return None
    stop = should_stop or (lambda: False)
    me = state.to_move
    layout = layout_for(2, state.rules.bank_copies(2))
    wins_after: dict[tuple, bool] = {}
    for succ in candidates if candidates is not None else successors(state):
        if stop():
            raise SearchInterrupted
        lost = lost_homes(succ.key, layout)
        if lost[me] or lost[1 - me]:
            continue  # a loss, or a win in one (not this question)
        after = state.copy()
        after.apply_turn(succ.turn)
        if after.result is not None:
            continue
        probe = after.copy()
        probe.to_move = me
        if immediate_win(probe, stop) is None:
            continue  # no threat even if the opponent could pass
        if _every_reply_loses(after, me, layout, wins_after, stop):
            return succ.turn
    return None


def _every_reply_loses(after: GameState, me: int, layout, wins_after: dict[tuple, bool],
                       stop: Callable[[], bool]) -> bool:
    """Whether every reply of the opponent (to move in ``after``) leaves ``me`` a
    win-in-one (or loses it the game at once). ``wins_after`` caches the answer by the
    position's key (``me`` to move)."""
    if immediate_win(after, stop) is not None:
        return False  # the opponent wins first
    for reply in successors(after):
        if stop():
            raise SearchInterrupted
        lost = lost_homes(reply.key, layout)
        if lost[me]:
            return False
        if lost[1 - me]:
            continue  # the reply loses the opponent's home by itself
        known = wins_after.get(reply.key)
        if known is None:
            position = after.copy()
            position.apply_turn(reply.turn)
            if position.result is not None:
                known = me in position.result.winners
            else:
                known = immediate_win(position, stop) is not None
            wins_after[reply.key] = known
        if not known:
            return False
    return True


def is_forced_win_in_two(state: GameState, turn: Turn,
                         should_stop: Callable[[], bool] | None = None) -> bool:
    """Whether ``turn`` (of the player to move) is a forced win in two or a win in one:
    the benchmark's check of the computer's choice."""
    after = state.copy()
    after.apply_turn(turn)
    me = state.to_move
    if after.result is not None:
        return me in after.result.winners
    return forced_win_in_two(state, [Successor(turn, canonical_key(after))],
                             should_stop=should_stop) is not None


__all__ = ["COLOR_WORDS", "KINDS", "Threat", "find_threats", "forced_win_in_two",
           "homes_in_danger", "is_forced_win_in_two", "overpopulation_near", "turn_words"]
