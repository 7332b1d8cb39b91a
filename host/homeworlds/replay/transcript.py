"""Replaying recorded games through the rules engine.

This sits above ``rules`` and ``notation``: it walks an SDG transcript turn by
turn, checks whose turn it is and every action, and reports the first illegal
turn (with the action as written and the reason) or how the game ended.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from homeworlds.notation import CookedGame, SdgGame, format_cooked_turn
from homeworlds.rules import (
    Alignments,
    AmbiguousAction,
    GameState,
    Homeworld,
    IllegalAction,
    Rules,
    SetupPick,
    alignments_to_text,
    preset,
)


@dataclass(frozen=True, slots=True)
class ReplayError:
    turn: int
    text: str
    reason: str

    def to_json(self) -> dict:
        return {"turn": self.turn, "text": self.text, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class ReplayResult:
    file: str
    game: int | None
    players: tuple[str, ...]
    error: ReplayError | None
    #: "opponent-eliminated", "self-eliminated", "draw" or "none"
    board_end: str
    end_turn: int | None
    #: Every winner (a Good/Evil game may have several); empty for a draw or no result.
    board_winners: tuple[int, ...]
    turns_replayed: int
    final_state: GameState

    @property
    def legal(self) -> bool:
        return self.error is None

    @property
    def board_winner(self) -> int | None:
        """The one winner, if the game has exactly one."""
        return self.board_winners[0] if len(self.board_winners) == 1 else None

    def to_json(self) -> dict:
        return {
            "file": self.file,
            "game": self.game,
            "players": list(self.players),
            "legal": self.legal,
            "error": self.error.to_json() if self.error else None,
            "board_end": self.board_end,
            "end_turn": self.end_turn,
            "board_winner": self.board_winner,
            "board_winners": list(self.board_winners),
            "rules": self.final_state.rules.name,
            "alignments": (alignments_to_text(self.final_state.alignments)
                           if self.final_state.alignments is not None else None),
        }


class ReplaySetupError(ValueError):
    """The rules or alignments named for a transcript cannot apply to it."""


def rules_for_game(game: SdgGame, requested: Rules | None, *, explicit: bool = False) -> Rules:
    """The preset for a transcript. ``explicit``: the user named ``requested`` for this file
    (``replay --rules``), which then applies whatever the player count. Otherwise the file's
    ``Rules:`` header; else ``requested`` (default ``sdg``) for two players, and for three or
    more the preset the Variants line names (none: last-standing), since the goals differ."""
    players = max(2, len(game.players))
    if explicit and requested is not None:
        if not requested.min_players <= players <= requested.max_players:
            raise ReplaySetupError(f"the {requested.name} rules are for "
                                   f"{requested.min_players}-{requested.max_players} players; "
                                   f"this game has {players}")
        return requested
    if game.rules is not None:
        return _with_handicaps(preset(game.rules), game)
    if len(game.players) <= 2:
        return _with_handicaps(requested or preset("sdg"), game)
    variants = {v.strip().lower() for v in game.variants}
    if "sinister" in variants:
        return preset("sinister")
    if "left man down" in variants:
        return preset("left-man-down")
    return preset("last-standing")


def _with_handicaps(rules: Rules, game: SdgGame) -> Rules:
    """The rules with the transcript's ``Handicaps:`` header applied (a game the table
    recorded with Brain Transference replays only with it)."""
    return rules if game.handicaps is None else replace(rules, handicaps=game.handicaps)


def setup_relative_numbering(game: SdgGame):
    """Turn numbers as reported: the transcript's, shifted so that the setups are turns 1
    and 2 when players passed before setting up (SDG allowed that; expected.tsv and every
    tool downstream count that way). Turns before the first setup keep their number."""
    first_setup = next((k for k, t in enumerate(game.turns)
                        if any(isinstance(a, (Homeworld, SetupPick)) for a in t.actions)), 0)

    def number(turn) -> int:
        return turn.number - first_setup if turn.number > first_setup else turn.number
    return number


def replay_game(game: SdgGame, rules: Rules | None = None, file: str = "", *,
                explicit: bool = False, alignments: Alignments | None = None) -> ReplayResult:
    """Replay a transcript. ``rules``/``explicit``: see ``rules_for_game``. ``alignments``
    (setup order) override the file's ``Alignments:`` header. Raises ReplaySetupError when
    the named rules or alignments cannot apply to the game."""
    rules = rules_for_game(game, rules, explicit=explicit)
    number = setup_relative_numbering(game)
    players = game.players
    # Seats are numbered in setup order; an opening pass lets the second seat move first.
    first = game.turns[0].seat if game.turns else 0
    dealt = alignments if alignments is not None else game.alignments
    try:
        state = GameState(rules, max(2, len(players)), first_to_move=first, alignments=dealt)
    except ValueError as exc:
        raise ReplaySetupError(str(exc)) from None
    error: ReplayError | None = None
    end_turn: int | None = None
    replayed = 0
    for index, turn in enumerate(game.turns):
        whole_text = "; ".join(turn.texts)
        if turn.seat != state.to_move and len(players) > 2 and not state.is_over:
            infer_departures(state, game, index, turn.seat)
        if state.is_over:
            error = ReplayError(number(turn), whole_text,
                                "the game was already over: " + _describe_end(state, players))
            break
        if turn.seat != state.to_move:
            error = ReplayError(number(turn), whole_text,
                                f"it is {players[state.to_move]}'s turn, not "
                                f"{players[turn.seat]}'s")
            break
        tip = state.begin_turn()
        for action, text in zip(turn.actions, turn.texts, strict=True):
            try:
                tip.apply(action)
            except (IllegalAction, AmbiguousAction) as exc:
                error = ReplayError(number(turn), text, _reason(exc, action))
                break
        if error is not None:
            break
        try:
            after = tip.finish()
        except (IllegalAction, AmbiguousAction) as exc:
            error = ReplayError(number(turn), whole_text, _reason(exc, None))
            break
        state = after
        replayed += 1
        if state.is_over and end_turn is None:
            end_turn = number(turn)
    return _result(file, game.number, players, error, end_turn, replayed, state)


def _result(file: str, number: int | None, players, error: ReplayError | None,
            end_turn: int | None, replayed: int, state: GameState) -> ReplayResult:
    """The outcome on the board: an elimination or a draw; anything else is "none"."""
    result = state.result
    if result is None or result.kind not in ("opponent-eliminated", "self-eliminated", "draw"):
        return ReplayResult(file, number, players, error, "none", None, (), replayed, state)
    return ReplayResult(file, number, players, error, result.kind, end_turn,
                        tuple(result.winners), replayed, state)


def replay_cooked_game(game: CookedGame, rules: Rules | None = None,
                       file: str = "") -> ReplayResult:
    """Replay a cooked file: its turns, alternating from owner 0, from its position.

    Turn numbers count the file's turns (1 is the first turn line). The players are named
    after their homes. A position the bank cannot hold is a ValueError (the file is
    unreadable, not illegal).
    """
    rules = rules or preset("sdg")
    homes = {s.home_of: s.name for s in game.systems if s.home_of is not None and s.name}
    players = tuple(homes.get(seat, f"seat {seat}") for seat in (0, 1))
    state = GameState.from_position(game.systems, rules, to_move=0)
    error: ReplayError | None = None
    end_turn: int | None = None
    replayed = 0
    for number, turn in enumerate(game.turns, start=1):
        whole_text = format_cooked_turn(turn)
        if state.is_over:
            error = ReplayError(number, whole_text,
                                "the game was already over: " + _describe_end(state, players))
            break
        try:
            state.apply_turn(turn)
        except (IllegalAction, AmbiguousAction) as exc:
            error = ReplayError(number, whole_text, str(exc))
            break
        replayed += 1
        if state.is_over and end_turn is None:
            end_turn = number
    return _result(file, None, players, error, end_turn, replayed, state)


def infer_departures(state: GameState, game: SdgGame, index: int, seat: int) -> None:
    """SDG multi-player games go on when a player resigns, or misses a turn on time; the
    transcript only shows that their turns are skipped. Seats skipped before ``seat`` that
    never move again have left the game here; the others missed this turn."""
    later = {t.seat for t in game.turns[index:]}
    s = state.to_move
    while s != seat and not state.is_over:
        if s not in later and len(state.active_seats()) > 2:
            state.resign(s)
        s = (s + 1) % state.players
    if not state.is_over:
        state.to_move = seat


def _reason(exc: Exception, action: object) -> str:
    text = str(exc)
    prefix = f"{action}: "
    return text[len(prefix):] if action is not None and text.startswith(prefix) else text


def _describe_end(state: GameState, players: tuple[str, ...]) -> str:
    result = state.result
    if result is None:
        return "not over"
    names = ", ".join(players[s] for s in result.winners) or "nobody"
    return f"{result.kind}, won by {names}"
