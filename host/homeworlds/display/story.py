"""What a turn did, for spectators: the systems and pieces it touched and a caption in words.

``tell_turn(before, actions, seat, players)`` plays the turn's actions one by one on a copy
of the position before it (the rules engine's ``TurnInProgress``) and notes what each did:
a ship moved from one system to another, built, traded, captured, sacrificed, a system
discovered, a catastrophe and what it returned to the bank (which colour, stars and ships,
whose), a system whose star went back to the bank when its last ship left. The star map
marks those systems and pieces until the next turn (``display.svg``, ``Overlay.story``);
the caption says it in one line naming the player ("Aaron sacrificed a large yellow at
Fomalhaut: moved a small green from Fomalhaut to Vega; …").

``ending_reason(before, actions, seat, players)`` says why the game ended in the rulebook's
terms (001_3c703dd05f9efb6a.txt, *How to win*: "A player is eliminated if, at the end of
either player's turn, they do not control a ship at their own Homeworld (or if both stars of
their Homeworld have been destroyed)."), e.g. "Aaron has no ship at his homeworld".

Pure functions; a turn the rules refuse gives a story without marks (``TurnStory.failed``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from homeworlds.rules import (
    AmbiguousAction,
    BrainTransference,
    Build,
    Capture,
    Catastrophe,
    Discover,
    GameState,
    Homeworld,
    IllegalAction,
    IllegalTurn,
    Move,
    Pass,
    Piece,
    Sacrifice,
    SetupPick,
    System,
    Trade,
)

__all__ = ["MARK_KINDS", "Mark", "TurnStory", "ending_reason", "piece_words", "tell_turn"]

SIZE_WORDS = ("", "small", "medium", "large")
COLOR_WORDS = ("red", "yellow", "green", "blue")
#: What a mark on the map says happened at a system (``Mark.kind``).
MARK_KINDS = ("moved-from", "moved-to", "built", "traded", "captured", "sacrificed",
              "discovered", "catastrophe", "faded", "homeworld")


@dataclass(frozen=True, slots=True)
class Mark:
    """One thing the turn did at a system: ``kind`` (``MARK_KINDS``), the ``piece`` it
    concerns (text, e.g. "y2"; None for a catastrophe), the ``seat`` that owns it after
    the turn (None: a star or the bank), and a few ``words`` for the card ("built", "lost
    its blue star and 2 ships")."""

    system: str
    kind: str
    piece: str | None
    seat: int | None
    words: str

    def to_json(self) -> dict:
        return {"system": self.system, "kind": self.kind, "piece": self.piece,
                "seat": self.seat, "words": self.words}


@dataclass(frozen=True, slots=True)
class TurnStory:
    seat: int
    marks: tuple[Mark, ...]
    caption: str
    #: Systems that left the map in this turn, each with why ("its star faded", ...).
    gone: tuple[tuple[str, str], ...] = ()
    #: Why the game ended with this turn, in the rulebook's terms (None: it goes on).
    ending: str | None = None
    failed: bool = False

    def marks_at(self, system: str) -> tuple[Mark, ...]:
        key = system.casefold()
        return tuple(m for m in self.marks if m.system.casefold() == key)


def piece_words(piece: Piece, role: str = "") -> str:
    """``a large yellow`` (``role``: "ship"/"star" adds the noun)."""
    size = SIZE_WORDS[int(piece.size)]
    article = "an" if size[0] in "aeiou" else "a"
    return f"{article} {size} {COLOR_WORDS[int(piece.color)]}" + (f" {role}" if role else "")


def _name(players: Sequence[str], seat: int | None) -> str:
    if seat is None:
        return "someone"
    return players[seat] if 0 <= seat < len(players) else f"seat {seat + 1}"


def _where(system: System | None, name: str, players: Sequence[str]) -> str:
    """A system as a spectator knows it: "Aaron's home" or its name."""
    if system is not None and system.home_of is not None:
        return f"{_name(players, system.home_of)}'s home"
    return name


def _pieces_of(system: System | None) -> tuple[list[int], list[list[int]]]:
    if system is None:
        return [], []
    return list(system.stars), [list(f) for f in system.ships]


def _count_words(n: int, noun: str) -> str:
    return f"{'a' if n == 1 else n} {noun}{'' if n == 1 else 's'}"


def _loss_words(stars: list[int], ships: int, color: int | None) -> str:
    """"its blue star and 2 ships" / "3 ships"."""
    parts = []
    if stars:
        colour = f"{COLOR_WORDS[color]} " if color is not None else ""
        parts.append(f"its {colour}star" if len(stars) == 1 else f"its {len(stars)} stars")
    if ships:
        parts.append(_count_words(ships, "ship"))
    return " and ".join(parts) or "nothing"


def tell_turn(before: GameState, actions: Sequence, seat: int,
              players: Sequence[str]) -> TurnStory:
    """The story of the turn ``actions`` played by ``seat`` from the position ``before``
    (not changed)."""
    who = _name(players, seat)
    if before.result is not None:
        return TurnStory(seat, (), f"{who}: no turn (the game was over)", failed=True)
    try:
        tip = before.begin_turn()
    except (IllegalTurn, IllegalAction):
        return TurnStory(seat, (), f"{who} played a turn", failed=True)
    marks: list[Mark] = []
    clauses: list[str] = []
    gone: list[tuple[str, str]] = []
    sacrificed: str | None = None
    sacrifice_clauses: list[str] = []
    for action in actions:
        st = tip.state
        names_before = {s.key: s for s in st.systems}
        copies = {k: (s.name, s.home_of, *_pieces_of(s)) for k, s in names_before.items()}
        try:
            tip.apply(action)
        except (IllegalAction, AmbiguousAction, IllegalTurn):
            return TurnStory(seat, tuple(marks), f"{who} played a turn", tuple(gone),
                             failed=True)
        after = tip.state
        clause, new_marks = _one_action(action, seat, copies, after, players)
        marks.extend(new_marks)
        for key, (name, home_of, _stars, _ships) in copies.items():
            if after.system(name) is None and not (
                    isinstance(action, Catastrophe) and action.system.casefold() == key):
                why = ("its star went back to the bank as the last ship left"
                       if home_of is None else "it was left empty")
                gone.append((name, why))
                marks.append(Mark(name, "faded", None, None, "star returned to the bank"))
            elif isinstance(action, Catastrophe) and action.system.casefold() == key \
                    and after.system(name) is None:
                gone.append((name, f"a {COLOR_WORDS[int(action.color)]} catastrophe "
                                   "destroyed its last star"))
        if isinstance(action, Sacrifice):
            sacrificed = clause
        elif sacrificed is not None and clause:
            sacrifice_clauses.append(clause)
        elif clause:
            clauses.append(clause)
    ending = None
    try:
        end = tip.finish()
    except (IllegalAction, IllegalTurn):
        end = None
    if end is not None and end.result is not None and end.result.kind in (
            "opponent-eliminated", "self-eliminated", "draw"):
        ending = _ending(tip.state, end, before, players, gone)
    if sacrificed is not None:
        said = sacrificed + (": " + ", ".join(sacrifice_clauses) if sacrifice_clauses else
                             " and gave up its actions")
        clauses.insert(0, said)
    text = f"{who} " + "; ".join(clauses) if clauses else f"{who} passed"
    if ending:
        text += f" \u2014 {ending}"
    return TurnStory(seat, tuple(marks), text, tuple(gone), ending)


@dataclass(frozen=True, slots=True)
class _Scene:
    """What one action's clause may look at: the mover, the systems before the action
    (``was``) and after it (``now``), the players' names."""

    seat: int
    copies: dict
    after: GameState
    players: Sequence[str]

    def now(self, name: str) -> System | None:
        return self.after.system(name)

    def was(self, name: str) -> System | None:
        entry = self.copies.get(name.casefold())
        if entry is None:
            return None
        system = System(entry[0], list(entry[2]), [list(f) for f in entry[3]])
        system.home_of = entry[1]
        return system

    def where(self, name: str, before: bool = False) -> str:
        return _where(self.was(name) if before else self.now(name), name, self.players)


Told = tuple[str, list[Mark]]


def _homeworld(action: Homeworld, sc: _Scene) -> Told:
    stars = " and ".join(piece_words(s) for s in action.stars)
    return (f"set up a homeworld: {stars} star{'s' if len(action.stars) > 1 else ''}, "
            f"{piece_words(action.ship)} ship",
            [Mark(action.name, "homeworld", action.ship.to_text(), sc.seat, "new homeworld")])


def _pick(action: SetupPick, sc: _Scene) -> Told:
    return (f"picked {piece_words(action.piece, action.role)}",
            [Mark(action.name, "homeworld", action.piece.to_text(),
                  sc.seat if action.role == "ship" else None, f"picked a {action.role}")])


def _build(action: Build, sc: _Scene) -> Told:
    return (f"built {piece_words(action.piece)} at {sc.where(action.system)}",
            [Mark(action.system, "built", action.piece.to_text(), sc.seat, "built")])


def _move(action: Move, sc: _Scene) -> Told:
    piece = action.piece.to_text()
    return (f"moved {piece_words(action.piece)} from {sc.where(action.origin, True)} to "
            f"{sc.where(action.destination)}",
            [Mark(action.origin, "moved-from", piece, sc.seat, "ship left"),
             Mark(action.destination, "moved-to", piece, sc.seat, "ship arrived")])


def _discover(action: Discover, sc: _Scene) -> Told:
    piece = action.piece.to_text()
    return (f"discovered {action.name} ({piece_words(action.star)} star) with "
            f"{piece_words(action.piece)} from {sc.where(action.origin, True)}",
            [Mark(action.origin, "moved-from", piece, sc.seat, "ship left"),
             Mark(action.name, "discovered", piece, sc.seat, "discovered")])


def _trade(action: Trade, sc: _Scene) -> Told:
    return (f"traded {piece_words(action.old)} for {piece_words(action.new)} at "
            f"{sc.where(action.system)}",
            [Mark(action.system, "traded", action.new.to_text(), sc.seat,
                  f"traded from {COLOR_WORDS[int(action.old.color)]}")])


def _capture(action: Capture, sc: _Scene) -> Told:
    before = sc.was(action.system)
    owner = action.owner
    if owner is None and before is not None:
        owners = [s for s, fleet in enumerate(before.ships)
                  if s != sc.seat and fleet[action.piece.index]]
        owner = owners[0] if len(owners) == 1 else None
    whose = f"{_name(sc.players, owner)}'s " if owner is not None else "an enemy "
    words = piece_words(action.piece).split(" ", 1)[1]
    return (f"captured {whose}{words} at {sc.where(action.system)}",
            [Mark(action.system, "captured", action.piece.to_text(), sc.seat,
                  f"captured from {_name(sc.players, owner)}" if owner is not None
                  else "captured")])


def _sacrifice(action: Sacrifice, sc: _Scene) -> Told:
    words = piece_words(action.piece)
    return (f"sacrificed {words} at {sc.where(action.system, True)}",
            [Mark(action.system, "sacrificed", action.piece.to_text(), None,
                  f"sacrificed {words.split(' ', 1)[1]}")])


def _catastrophe(action: Catastrophe, sc: _Scene) -> Told:
    color = int(action.color)
    before = sc.was(action.system)
    stars_lost = [i for i in (before.stars if before else []) if i // 3 == color]
    ships_lost = [(s, i) for s, fleet in enumerate(before.ships if before else [])
                  for i in range(color * 3, color * 3 + 3) for _ in range(fleet[i])]
    ships_count = len(ships_lost)
    if sc.now(action.system) is None and before is not None:
        ships_count = sum(sum(f) for f in before.ships)  # the star went: every ship too
    lost = _loss_words(stars_lost, ships_count, color)
    who_lost = sorted({s for s, _ in ships_lost})
    whose = (" (" + ", ".join(f"{sum(1 for t, _ in ships_lost if t == s)} of "
                              f"{_name(sc.players, s)}'s" for s in who_lost) + ")"
             ) if len(who_lost) > 1 else ""
    declared = "" if action.declarer is None else \
        f" declared by {_name(sc.players, action.declarer)}"
    return (f"caused a {COLOR_WORDS[color]} catastrophe{declared}: "
            f"{_where(before, action.system, sc.players)} lost {lost}{whose}",
            [Mark(action.system, "catastrophe", None, None,
                  f"{COLOR_WORDS[color]} catastrophe: lost {lost}")])


_TELLERS: dict[type, Callable[..., Told]] = {
    Homeworld: _homeworld, SetupPick: _pick, Build: _build, Move: _move,
    Discover: _discover, Trade: _trade, Capture: _capture, Sacrifice: _sacrifice,
    Catastrophe: _catastrophe,
    BrainTransference: lambda action, sc: ("used Brain Transference (the players swap "
                                           "sides)", []),
    Pass: lambda action, sc: ("", []),
}


def _one_action(action, seat: int, copies: dict, after: GameState,
                players: Sequence[str]) -> Told:
    """The clause (without the player's name) and the marks of one action applied."""
    teller = _TELLERS.get(type(action))
    if teller is None:
        return str(action), []
    return teller(action, _Scene(seat, copies, after, players))


def _ending(mid: GameState, end: GameState, before: GameState, players: Sequence[str],
            gone: Sequence[tuple[str, str]]) -> str:
    """Why the seats eliminated by the turn are out (first ``end``'s eliminated seats that
    were in the game ``before``)."""
    out = []
    for seat in range(end.players):
        if not end.eliminated[seat] or before.eliminated[seat]:
            continue
        home_before = before.home_of(seat)
        name = _name(players, seat)
        home = mid.system(home_before.name) if home_before is not None else None
        destroyed = home_before is not None and any(
            name.casefold() == home_before.key and "catastrophe" in why for name, why in gone)
        if home_before is None or destroyed or (home is not None and not home.stars):
            out.append(f"{name}'s homeworld lost both its stars")
        else:
            out.append(f"{name} has no ship at their homeworld")
    return "; ".join(out)


def ending_reason(before: GameState, actions: Sequence, seat: int,
                  players: Sequence[str]) -> str | None:
    """Why the turn ended the game, in the rulebook's terms (None: it did not)."""
    return tell_turn(before, actions, seat, players).ending

