"""What the player apparently tried, when no legal turn explains the table.

Turn inference (``inference``) says only that no legal turn leads to what the table shows,
and where the nearest legal outcome differs. ``diagnose(tip, observed)`` reads the
difference between the turn so far (``tip``) and the table as one action of the player to
move — a ship built, traded, captured, moved or sent to a new star, a colour cleared by a
catastrophe — and asks the rules (``TurnInProgress.apply``, the one authority) about it:
the refusal it gets says which rule was broken (``citations.cite`` gives its sentence).
When no single action explains it, one legal action and then the refused one are tried
(two builds where one was allowed). None when nothing of that kind explains the table or
every such action is legal (the mistake lies elsewhere, e.g. in the order of several
actions, and no rule is claimed).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from homeworlds.rules.actions import (
    Action,
    Build,
    Capture,
    Catastrophe,
    Discover,
    Move,
    Trade,
)
from homeworlds.rules.errors import HomeworldsError, IllegalAction
from homeworlds.rules.moves import fresh_system_name, legal_actions
from homeworlds.rules.pieces import PIECES, Color
from homeworlds.rules.state import TurnInProgress

#: Legal first actions tried before the refused one (a turn rarely offers more).
MAX_FIRST_ACTIONS = 400


def _fleet(pieces: Iterable) -> Counter:
    return Counter(p.index for p in pieces)


def _ship_counter(fleet: list[int]) -> Counter:
    return Counter({k: n for k, n in enumerate(fleet) if n})


def guessed_action(tip: TurnInProgress, observed: Iterable) -> Action | None:
    """The one action of the player to move that turns ``tip``'s position into the
    observed one (``ObservedSystem``s: name None for a system new this turn), legal or
    not; None when no single action does."""
    state = tip.state
    me = tip.seat
    systems = {s.name.casefold(): s for s in state.systems}
    seen: set[str] = set()
    added: list[tuple[str, int]] = []  # (system, piece) of the mover's ships
    removed: list[tuple[str, int]] = []
    enemy_lost: list[tuple[str, int]] = []
    cleared: list[tuple[str, Counter]] = []  # pieces gone from a system, anyone's
    fresh: list = []
    for obs in observed:
        if obs.name is None:
            fresh.append(obs)
            continue
        system = systems.get(obs.name.casefold())
        if system is None:
            return None
        seen.add(system.name.casefold())
        before = [_ship_counter(f) for f in system.ships]
        after = [_fleet(ships) for ships in obs.ships]
        gone_total: Counter = Counter()
        for seat in range(len(before)):
            gain = after[seat] - before[seat]
            loss = before[seat] - after[seat]
            if seat == me:
                added += [(system.name, k) for k in gain.elements()]
                removed += [(system.name, k) for k in loss.elements()]
            else:
                if gain:
                    return None  # the other's ships grew: not an action of the mover
                enemy_lost += [(system.name, k) for k in loss.elements()]
            gone_total += loss
        stars_before, stars_now = Counter(system.stars), _fleet(obs.stars)
        if stars_now - stars_before:
            return None  # stars appeared on an existing system
        star_loss = stars_before - stars_now
        cleared.append((system.name, gone_total + star_loss))
    for system in state.systems:
        if system.name.casefold() not in seen:
            gone = Counter(system.stars)
            for fleet in system.ships:
                gone += _ship_counter(fleet)
            if any(n for n in system.ships[me]):
                removed += [(system.name, k) for k, n in enumerate(system.ships[me])
                            for _ in range(n)]
            cleared.append((system.name, gone))
    return _one_action(tip, added, removed, enemy_lost, cleared, fresh)


def _one_action(tip: TurnInProgress, added, removed, enemy_lost, cleared, fresh
                ) -> Action | None:
    me = tip.seat
    piece = PIECES
    if len(fresh) == 1 and len(removed) == 1 and not added and not enemy_lost:
        new = fresh[0]
        ships = list(new.ships[me]) if me < len(new.ships) else []
        if len(new.stars) == 1 and len(ships) == 1 and ships[0].index == removed[0][1]:
            return Discover(piece[removed[0][1]], removed[0][0], new.stars[0],
                            fresh_system_name(tip.state))
        return None
    if fresh:
        return None
    if len(enemy_lost) == 1 and len(added) == 1 and not removed \
            and enemy_lost[0] == added[0]:
        return Capture(piece[added[0][1]], added[0][0])
    if not enemy_lost and len(added) == 1 and len(removed) == 1:
        (to, new), (origin, old) = added[0], removed[0]
        if to == origin:
            return Trade(piece[old], piece[new], to)
        if new == old:
            return Move(piece[new], origin, to)
        return None
    if not enemy_lost and len(added) == 1 and not removed:
        return Build(piece[added[0][1]], added[0][0])
    # A catastrophe: every piece gone is of one colour, all in one system.
    losses = [(name, gone) for name, gone in cleared if gone]
    if not added and len(losses) == 1:
        name, gone = losses[0]
        colors = {k // 3 for k in gone}
        if len(colors) == 1:
            return Catastrophe(name, Color(colors.pop()))
    return None


def diagnose(tip: TurnInProgress, observed: Iterable, *,
             finished: bool = False) -> IllegalAction | None:
    """The rules' refusal of the one action the table shows beyond ``tip`` (see the module
    doc), or None. ``finished``: the turn ends there (a hand-over), so the turn as a whole
    is checked too."""
    observed = list(observed)
    refusal = _refusal(tip, guessed_action(tip, observed), finished)
    if refusal is not None:
        return refusal
    # One legal action first (e.g. a build), then the one refused (a second build): only
    # a first action that brings the position nearer to the table's counts.
    distance = _distance(tip, observed)
    if not distance:
        return None
    for count, first in enumerate(legal_actions(tip)):
        if count >= MAX_FIRST_ACTIONS:
            break
        after = tip.copy()
        after.apply(first)
        if _distance(after, observed) >= distance:
            continue
        refusal = _refusal(after, guessed_action(after, observed), finished)
        if refusal is not None:
            return refusal
    return None


def _distance(tip: TurnInProgress, observed: list) -> int:
    """How many pieces differ between the turn's position and the table (by system)."""
    systems = {s.name.casefold(): s for s in tip.state.systems}
    total = 0
    seen = set()
    for obs in observed:
        system = systems.get(obs.name.casefold()) if obs.name is not None else None
        now = _fleet(obs.stars)
        for ships in obs.ships:
            now += _fleet(ships)
        if system is None:
            total += sum(now.values())
            continue
        seen.add(system.name.casefold())
        before = Counter(system.stars)
        for fleet in system.ships:
            before += _ship_counter(fleet)
        total += sum(((now - before) + (before - now)).values())
        for seat, ships in enumerate(obs.ships):  # a ship that changed hands
            total += sum((_fleet(ships) - _ship_counter(system.ships[seat])).values())
    for key, system in systems.items():
        if key not in seen:
            total += len(system.stars) + sum(sum(f) for f in system.ships)
    return total


def _refusal(tip: TurnInProgress, action: Action | None,
             finished: bool) -> IllegalAction | None:
    if action is None:
        return None
    trial = tip.copy()
    try:
        trial.apply(action)
        if finished:
            trial.finish()
    except IllegalAction as exc:
        return exc
    except HomeworldsError:
        return None
    return None


__all__ = ["diagnose", "guessed_action"]
