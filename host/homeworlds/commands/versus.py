"""``homeworlds versus``: play a two-player game against the computer in the terminal.

The human types each whole turn on one line in SDG notation, actions
separated by ``;`` (see ``HELP`` and docs/computer-opponent.md); the engine
checks it, and a refused turn is explained and asked for again.
"""

from __future__ import annotations

import argparse
import random
import sys
from typing import TextIO

from homeworlds.ai import LEVELS, ComputerPlayer
from homeworlds.display.terminal import render_position, terminal_width
from homeworlds.display.thinking import think
from homeworlds.notation import format_sdg_action, parse_sdg_action
from homeworlds.rules import (
    DEFAULT_PRESET,
    PRESETS,
    Action,
    GameState,
    HomeworldsError,
    InvalidNotation,
    Piece,
    SetupPick,
    Turn,
    deal_alignments,
    preset,
)

COMPUTER_NAME = "Computer"

HELP = """\
Type your whole turn on one line, actions separated by ';' (SDG notation,
case does not matter, keywords may be abbreviated: b, m, d, t, s, a, c, h):
  Homeworld Y1 B2 G3                  setup: two stars, then your ship
  Build G1 {me}                       build at a system
  Move G3 {me} Alpha                  move a ship to an existing system
  Discover G3 {me} B3 Alpha           move to a new system Alpha, star B3
  Trade G1 B1 {me}                    trade (change colour) a ship
  Attack Y2 {me}                      capture an enemy ship
  Sacrifice Y2 {me}; Move G1 {me} Alpha; Move G1 Alpha {cpu}
  Catastrophe {me} Green              clear an overpopulated colour
  Pass                                pass the whole turn
Your home is called {me}, the computer's {cpu}. Other commands:
  show    print the position again     hint    what the computer would play
  help    this text                    quit    leave the game (or end of input)"""

_ALTERNATING_HELP = """\
Alternating setup: each pick is a turn of its own: 'star Y1' (twice) then 'ship G3'."""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("versus", help="play against the computer in the terminal",
                       description="Play a two-player game against the computer opponent. "
                       "Type each turn in SDG notation; 'help' lists the forms.")
    p.add_argument("--rules", choices=sorted(n for n, r in PRESETS.items() if r.min_players <= 2),
                   default=DEFAULT_PRESET, help=f"rules preset (default {DEFAULT_PRESET})")
    p.add_argument("--level", type=int, choices=sorted(LEVELS), default=min(LEVELS),
                   help="computer strength: " + ", ".join(map(str, sorted(LEVELS)))
                   + f" (default {min(LEVELS)}; docs/computer-opponent.md, Levels)")
    p.add_argument("--seed", type=int, default=None,
                   help="seed for the computer's choices between equal turns (and, under "
                   "good-evil, for dealing the secret alignments)")
    p.add_argument("--human-first", action="store_true",
                   help="you set up and move first (default: the computer does)")
    p.add_argument("--name", default="Human",
                   help="your name, which is also your home's name (default Human)")
    p.add_argument("--no-color", action="store_true", help="plain text without ANSI colours")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, stdin: TextIO | None = None,
        stdout: TextIO | None = None) -> int:
    """Play one game; ``stdin``/``stdout`` default to the process's own."""
    stdin = stdin if stdin is not None else sys.stdin
    out = stdout if stdout is not None else sys.stdout
    name = args.name.strip()
    if not name or any(ch.isspace() or ch == ";" for ch in name) \
            or name.casefold() == COMPUTER_NAME.casefold():
        print(f"homeworlds versus: --name must be one word other than {COMPUTER_NAME!r}, "
              f"not {args.name!r}", file=sys.stderr)
        return 2
    try:
        rules = preset(args.rules)
    except ValueError as exc:
        print(f"homeworlds versus: {exc}", file=sys.stderr)
        return 2
    human = 0 if args.human_first else 1
    names = (name, COMPUTER_NAME) if human == 0 else (COMPUTER_NAME, name)
    color = not args.no_color and out.isatty()
    computer = ComputerPlayer(args.level, seed=args.seed, rules=rules, names=names)
    alignments = None
    if rules.goal == "good-evil":
        seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
        alignments = deal_alignments(2, seed)
    state = GameState(rules, alignments=alignments)
    game = _Game(state, human, names, computer, stdin, out, color)
    return game.play()


class _Game:
    def __init__(self, state: GameState, human: int, names: tuple[str, str],
                 computer: ComputerPlayer, stdin: TextIO, out: TextIO, color: bool):
        self.state = state
        self.human = human
        self.names = names
        self.computer = computer
        self.stdin = stdin
        self.out = out
        self.color = color
        self.me = names[human]
        self.echoed = _isatty(stdin)
        #: Thinking is shown as a line redrawn in place on a terminal, else as one line.
        self.live = _isatty(out)
        self.cpu = names[1 - human]

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def play(self) -> int:
        try:
            return self._play()
        except KeyboardInterrupt:
            self.say("\nGame abandoned.")
            self.reveal()
            return 0

    def _play(self) -> int:
        state = self.state
        self.say(f"Homeworlds against the computer (level {self.computer.level}, "
                 f"{state.rules.name} rules). You are {self.me}; "
                 f"{'you' if self.human == 0 else 'the computer'} set up first.")
        if state.alignments is not None:
            self.say(f"Your secret alignment: {state.alignments[self.human].capitalize()} "
                     "(both are revealed at the end).")
        self.say("Type 'help' for how to write a turn.\n")
        while state.result is None:
            if state.to_move == self.human:
                self.show()
                turn = self.ask_turn()
                if turn is None:
                    self.say("Game abandoned.")
                    self.reveal()
                    return 0
                state.apply_turn(turn)
            else:
                turn = think(self.computer.choose_turn, state, self.out, tty=self.live,
                             who=self.cpu)
                state.apply_turn(turn)
                self.say(f"{self.cpu}: {self.format_turn(turn)}\n")
        self.show()
        self.say(self.result_text())
        self.reveal()
        return 0

    def reveal(self) -> None:
        """Good/Evil: the secret alignments are shown when the game ends."""
        if self.state.alignments is not None:
            self.say("Alignments: " + ", ".join(
                f"{name} {alignment.capitalize()}"
                for name, alignment in zip(self.names, self.state.alignments, strict=True)))

    def show(self) -> None:
        if self.state.systems:
            self.say(render_position(self.state, self.names, color=self.color,
                                     width=terminal_width(self.out)))
            self.say()

    def result_text(self) -> str:
        result = self.state.result
        assert result is not None  # asked once the game is over
        if not result.winners:
            return "The game is a draw: both homes fell."
        if self.human in result.winners:
            return "You win!"
        return "The computer wins."

    def format_turn(self, turn: Turn) -> str:
        return "; ".join(_format_action(a) for a in turn)

    def ask_turn(self) -> Turn | None:
        """Read lines until one is a legal turn (None: quit or end of input)."""
        while True:
            self.out.write(f"{self.me} to play> ")
            self.out.flush()
            line = self.stdin.readline()
            if not line:
                self.say()
                return None
            if not self.echoed:
                # Piped input is not echoed by a terminal: show it, so the transcript reads
                # like the game.
                self.out.write(line if line.endswith("\n") else line + "\n")
            text = line.strip()
            word = text.casefold()
            if not text:
                continue
            if word in ("quit", "exit", "q"):
                return None
            if word in ("help", "?"):
                self.say(HELP.format(me=self.me, cpu=self.cpu))
                if self.state.rules.setup_mode == "alternating":
                    self.say(_ALTERNATING_HELP)
                continue
            if word == "show":
                self.show()
                continue
            if word == "hint":
                self.hint()
                continue
            try:
                turn = self.parse_turn(text)
                self.state.copy().apply_turn(turn)
            except HomeworldsError as exc:
                self.say(f"Not accepted: {exc}")
                self.say("Type your turn again ('help' shows the notation).")
                continue
            return turn

    def parse_turn(self, text: str) -> Turn:
        parts = [p.strip() for p in text.split(";")]
        if any(not p for p in parts):
            raise InvalidNotation(f"an empty action between ';' in {text!r}", text)
        actions: list[Action] = []
        for number, part in enumerate(parts, start=1):
            try:
                actions.append(self.parse_action(part))
            except InvalidNotation as exc:
                if len(parts) == 1:
                    raise
                raise InvalidNotation(f"action {number}: {exc}", part) from None
        return tuple(actions)

    def parse_action(self, text: str) -> Action:
        if self.state.rules.setup_mode == "alternating" and self.state.in_setup:
            words = text.split()
            if words and words[0].casefold() == "pick":
                words = words[1:]
            if len(words) == 2 and words[0].casefold() in ("star", "ship"):
                return SetupPick(Piece.from_text(words[1]), words[0].casefold(), self.me)
            raise InvalidNotation(f"during the alternating setup type 'star Y1' or 'ship G3', "
                                  f"not {text!r}", text)
        return parse_sdg_action(text, player=self.me, strict=True)

    def hint(self) -> None:
        """The computer's suggestion for the human's turn; nothing is played."""
        adviser = ComputerPlayer(self.computer.level, seed=0, names=self.names)
        turn = think(adviser.choose_turn, self.state, self.out, tty=self.live,
                     who="Hint: the computer")
        self.say(f"The computer would play: {self.format_turn(turn)}")


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _format_action(action: Action) -> str:
    if isinstance(action, SetupPick):
        return f"{action.role} {action.piece.to_text().upper()}"
    return format_sdg_action(action)

