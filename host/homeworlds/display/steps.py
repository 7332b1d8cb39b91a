"""A recorded game as the list of its positions, one after each turn, for stepping through.

The archive viewer and the attract mode show a game turn by turn; this module replays it
once through the rules engine and keeps each position (``GameState`` copies are cheap).
Sources: a stored game (``GameStore``), an SDG transcript or a cooked file. A file that
cannot be read raises ``GameFileError`` naming the file and line; a turn the rules refuse
ends the steps there, with ``error`` saying which turn and why (the game is still shown up
to it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from homeworlds.display.story import TurnStory, tell_turn
from homeworlds.notation import (
    SdgGame,
    format_cooked_turn,
    format_sdg_action,
    read_cooked,
    read_sdg,
)
from homeworlds.notation.textfile import notation_format, read_notation_text
from homeworlds.rules import (
    AmbiguousAction,
    Capture,
    Catastrophe,
    GameState,
    IllegalAction,
    InvalidNotation,
    Sacrifice,
    preset,
    red_alert,
)

__all__ = ["GameFileError", "GameSteps", "Step", "caption", "load_game_file",
           "steps_of_cooked", "steps_of_sdg", "steps_of_stored"]


class GameFileError(Exception):
    """A game file that cannot be shown: ``path``, ``line`` (or None) and ``reason``."""

    def __init__(self, path: str, reason: str, line: int | None = None):
        self.path, self.reason, self.line = path, reason, line
        where = f"{path}, line {line}" if line is not None else path
        super().__init__(f"{where}: {reason}")


@dataclass(frozen=True, slots=True)
class Step:
    """The position after turn ``number`` (0: before the first turn), by ``seat``."""

    number: int
    seat: int | None
    text: str
    state: GameState
    #: Action kinds worth a caption: "capture", "sacrifice", "catastrophe".
    events: tuple[str, ...] = ()
    #: The turn's actions (what ``display.story`` tells).
    actions: tuple = ()


@dataclass(frozen=True, slots=True)
class GameSteps:
    title: str
    source: str
    players: tuple[str, ...]
    rules: str
    steps: tuple[Step, ...]
    #: The game's SDG text for export (None: the source has none, e.g. a cooked file).
    sdg: str | None = None
    #: A cooked file's own text (its export).
    cooked: str | None = None
    #: A turn the rules refused: the steps end before it.
    error: str | None = None
    #: Red Alert per step index, worked out when first asked.
    _alerts: dict[int, int | None] = field(default_factory=dict, compare=False, repr=False)
    _stories: dict[int, TurnStory | None] = field(default_factory=dict, compare=False,
                                                  repr=False)

    def player(self, seat: int | None) -> str:
        if seat is None:
            return ""
        return self.players[seat] if seat < len(self.players) else f"seat {seat + 1}"

    def story(self, index: int) -> TurnStory | None:
        """What the turn of step ``index`` did (``display.story``); None for the start."""
        if index not in self._stories:
            step = self.steps[index]
            story = None
            if index > 0 and step.seat is not None and step.actions:
                told = tell_turn(self.steps[index - 1].state, step.actions, step.seat,
                                 self.players)
                story = None if told.failed else told
            self._stories[index] = story
        return self._stories[index]

    def red_alert_seat(self, index: int) -> int | None:
        """The seat that the next player could eliminate after step ``index`` (None: none)."""
        if index not in self._alerts:
            step = self.steps[index]
            seat = None
            if step.seat is not None and not step.state.is_over:
                try:
                    if red_alert(step.state, step.seat) is not None:
                        seat = step.seat
                except ValueError:
                    seat = None
            self._alerts[index] = seat
        return self._alerts[index]


def _events(actions) -> tuple[str, ...]:
    kinds = []
    for action in actions:
        for cls, word in ((Capture, "capture"), (Sacrifice, "sacrifice"),
                          (Catastrophe, "catastrophe")):
            if isinstance(action, cls) and word not in kinds:
                kinds.append(word)
    return tuple(kinds)


def _play(state: GameState, actions) -> GameState:
    tip = state.begin_turn()
    for action in actions:
        tip.apply(action)
    return tip.finish()


def steps_of_sdg(game: SdgGame, source: str, sdg_text: str | None = None) -> GameSteps:
    from homeworlds.replay import infer_departures, rules_for_game, setup_relative_numbering

    rules = rules_for_game(game, None)
    number = setup_relative_numbering(game)
    first = game.turns[0].seat if game.turns else 0
    state = GameState(rules, max(2, len(game.players)), first_to_move=first,
                      alignments=game.alignments)
    steps = [Step(0, None, "", state.copy())]
    error = None
    letters = ({seat: letter for letter, seat in game.seat_letters().items()}
               if len(game.players) > 2 else None)
    for index, turn in enumerate(game.turns):
        text = _sdg_text(turn, letters, game.players)
        if turn.seat != state.to_move and len(game.players) > 2 and not state.is_over:
            infer_departures(state, game, index, turn.seat)
        if state.is_over:
            error = f"turn {number(turn)} ({text}) comes after the game was over"
            break
        if turn.seat != state.to_move:
            error = f"turn {number(turn)}: it is not {game.players[turn.seat]}'s turn"
            break
        try:
            state = _play(state, turn.actions)
        except (IllegalAction, AmbiguousAction) as exc:
            error = f"turn {number(turn)} ({text}) is illegal: {exc}"
            break
        steps.append(Step(number(turn), turn.seat, text, state.copy(), _events(turn.actions),
                          tuple(turn.actions)))
    title = (f"SDG game {game.number}" if game.number is not None else Path(source).name)
    return GameSteps(f"{title}: {' v '.join(game.players)}", source, game.players, rules.name,
                     tuple(steps), sdg_text, None, error)


def _sdg_text(turn, letters, players) -> str:
    """The turn's actions in SDG's full words ("Trade G3 R3 Felix" where the file may say
    "T G3 R3 Felix"), one per line; the file's own words if they cannot be rewritten."""
    try:
        return "\n".join(format_sdg_action(a, seat_letters=letters, players=players)
                         for a in turn.actions)
    except (TypeError, ValueError, KeyError):
        return "\n".join(turn.texts)


def steps_of_cooked(text: str, source: str) -> GameSteps:
    game = read_cooked(text, source=source, named=True)
    if not game.systems:
        raise InvalidNotation("no position in the file (expected lines like "
                              "'Home (0, y1b2) g3-')", source=source)
    rules = preset("sdg")
    homes = {s.home_of: s.name for s in game.systems if s.home_of is not None}
    players = tuple(homes.get(seat, f"seat {seat + 1}") for seat in (0, 1))
    state = GameState.from_position(game.systems, rules, to_move=0)
    steps = [Step(0, None, "", state.copy())]
    error = None
    for number, turn in enumerate(game.turns, start=1):
        said = format_cooked_turn(turn)
        if state.is_over:
            error = f"turn {number} ({said}) comes after the game was over"
            break
        seat = state.to_move
        try:
            state = _play(state, turn)
        except (IllegalAction, AmbiguousAction) as exc:
            error = f"turn {number} ({said}) is illegal: {exc}"
            break
        steps.append(Step(number, seat, said, state.copy(), _events(turn), tuple(turn)))
    return GameSteps(f"{Path(source).name}: {' v '.join(players)}", source, players,
                     rules.name, tuple(steps), None, text, error)


def load_game_file(path: str | Path) -> GameSteps:
    """An SDG transcript or a cooked file (told apart by their first line). GameFileError
    names the file and line when it cannot be read."""
    from homeworlds.replay import ReplaySetupError

    path = Path(path)
    try:
        text = read_notation_text(path)
    except OSError as exc:
        raise GameFileError(str(path), exc.strerror or str(exc)) from None
    except (InvalidNotation, ValueError) as exc:
        raise GameFileError(str(path), _reason(exc), getattr(exc, "line", None)) from None
    try:
        if notation_format(text) == "cooked":
            return steps_of_cooked(text, str(path))
        return steps_of_sdg(read_sdg(text, source=str(path)), str(path), text)
    except InvalidNotation as exc:
        raise GameFileError(str(path), _reason(exc), exc.line) from None
    except (ReplaySetupError, ValueError) as exc:
        raise GameFileError(str(path), str(exc)) from None


def _reason(exc: Exception) -> str:
    """The message without the "source:line: " that InvalidNotation puts before it."""
    text = str(exc)
    source, line = getattr(exc, "source", None), getattr(exc, "line", None)
    for prefix in (f"{source}:{line}: ", f"{source}: ", f"line {line}: "):
        if text.startswith(prefix):
            return text[len(prefix):]
    return text


def steps_of_stored(store, game) -> GameSteps:
    """A game of the ``GameStore`` (``StoredGame``), replayed from its committed turns."""
    from homeworlds.store.export import ExportError, export_sdg
    from homeworlds.store.records import turn_from_sdg

    rules = preset(game.rules)
    state = GameState(rules, len(game.players), first_to_move=game.first_seat)
    steps = [Step(0, None, "", state.copy())]
    error = None
    for turn in store.turns(game.id):
        try:
            actions = turn_from_sdg(turn.sdg, turn.seat, game.players)
            state = _play(state, actions)
        except (InvalidNotation, IllegalAction, AmbiguousAction) as exc:
            error = f"turn {turn.number} ({turn.sdg}) cannot be replayed: {exc}"
            break
        steps.append(Step(turn.number, turn.seat, turn.sdg, state.copy(), _events(actions),
                          tuple(actions)))
    try:
        sdg = export_sdg(store, game)
    except ExportError:
        sdg = None
    return GameSteps(f"Game {game.id}: {' v '.join(game.players)}", f"game {game.id}",
                     tuple(game.players), game.rules, tuple(steps), sdg, None, error)


def caption(game: GameSteps, index: int, *, alerts: bool = True) -> str:
    """One line for a spectator: which turn, what it did in words (``display.story``), and
    what came of it (Red Alert, the win and why)."""
    step = game.steps[index]
    if step.seat is None:
        return f"{game.title}: the start"
    story = game.story(index)
    if story is not None:
        said = story.caption
        if story.ending:
            said = said.replace(f" \u2014 {story.ending}", "")
        words = [f"Turn {step.number}: {said}"]
    else:
        words = [f"Turn {step.number}: {game.player(step.seat)}",
                 " ".join(step.text.split())]
    notes = []
    result = step.state.result
    if result is not None:
        if result.winners:
            notes.append(" and ".join(game.player(s) for s in result.winners) + " wins")
        else:
            notes.append("a draw")
        if story is not None and story.ending:
            notes[-1] += ": " + story.ending
    elif alerts and game.red_alert_seat(index) is not None:
        notes.append(f"Red Alert for {game.player(game.red_alert_seat(index))}")
    line = " \u2014 ".join(words)
    return line + (" (" + "; ".join(notes) + ")" if notes else "")
