"""The rulebook's own sentence behind a mistake (docs/rules.md, "The rule behind a mistake").

``cite(error, rules)`` names the rule an ``IllegalAction`` breaks (the engine's reason and
the action's kind) and gives that rule's sentence from the preset's rulebook, word for
word: every quotation here is also in docs/rules.md, whose quotations a test checks
against the rulebook files, and a test checks that the two agree. Where the preset's own
rulebook has no sentence for a rule, the sentence of the rulebook its rules follow for it
(Looney Labs') is given, and the citation says which book it is from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from homeworlds.rules.actions import (
    Build,
    Capture,
    Catastrophe,
    Discover,
    Homeworld,
    Move,
    Pass,
    Sacrifice,
    SetupPick,
    Trade,
)
from homeworlds.rules.errors import IllegalAction
from homeworlds.rules.presets import Rules

LOONEY = "000_ad12fc0a1f739089.txt"
BGA = "001_3c703dd05f9efb6a.txt"
GOOD_EVIL = "002_97f4ce8dbb4cee45.txt"
SPEC = "003_30630e769415c554.txt"

#: How a rulebook file is named to a player.
BOOK_NAMES = {
    LOONEY: "Looney Labs' rules",
    BGA: "Board Game Arena's rules",
    GOOD_EVIL: "the Good/Evil rules",
    SPEC: "the formal specification",
    "004_ad3414344ef6dafa.txt": "the French Good/Evil rules",
}

#: Each preset's rulebooks, its own first.
PRESET_BOOKS = {
    "looney": (LOONEY, BGA),
    "sdg": (LOONEY, BGA),
    "strict": (LOONEY, BGA),
    "alternating-setup": (SPEC, LOONEY),
    "good-evil": (GOOD_EVIL, LOONEY),
    "last-standing": (LOONEY, BGA),
    "sinister": (LOONEY, BGA),
    "left-man-down": (LOONEY, BGA),
}


@dataclass(frozen=True, slots=True)
class Citation:
    """A rule and one sentence of a rulebook that states it."""

    rule: str
    title: str
    quote: str
    file: str
    section: str

    @property
    def book(self) -> str:
        return BOOK_NAMES.get(self.file, self.file)

    def text(self) -> str:
        """The sentence as a player reads it: “…” — Looney Labs' rules, GREEN."""
        return f"“{self.quote}” — {self.book}, {self.section}"

    def to_json(self) -> dict:
        return {"rule": self.rule, "title": self.title, "quote": self.quote,
                "book": self.book, "file": self.file, "section": self.section}


def _c(rule: str, title: str, quote: str, file: str, section: str) -> Citation:
    return Citation(rule, title, quote, file, section)


#: rule -> its sentences, in the order they are preferred (the preset's book first).
CITATIONS: dict[str, tuple[Citation, ...]] = {
    "one-action": (
        _c("one-action", "One action a turn",
           "During each turn, you may perform one Basic action, OR you may return one of your "
           "ships to the Bank in order to gain as many as three Sacrifice actions.",
           LOONEY, "TURN OPTIONS"),
        _c("one-action", "One action a turn",
           "On your turn, do one of these three things: perform a single free action in a "
           "system that you occupy, sacrifice one of your ships to take a certain number "
           "of actions of that ship's color, or take no action at all.", GOOD_EVIL,
           "Play")),
    "technology": (
        _c("technology", "Colour powers",
           "You can’t use the power of a color another player has in the same system",
           LOONEY, "COMMON MISTAKES"),
        _c("technology", "Colour powers",
           "When you choose to perform a single free action in a system that you occupy, "
           "you may use the power of any technology (color) that's available to you in "
           "that system.", GOOD_EVIL,
           "Free Actions")),
    "build-colour": (
        _c("build-colour", "Build: a colour you have there",
           "The color of your new ship must be the same as one of the ships you control in the "
           "system where the new ship is being Built.", LOONEY, "GREEN"),
        _c("build-colour", "Build: a colour you have there",
           "The new ship must match the color a ship that you aready own in that system.",
           GOOD_EVIL,
           "Free Actions")),
    "build-smallest": (
        _c("build-smallest", "Build: the smallest in the bank",
           "The ship you Build must be the smallest size of that color currently available in "
           "the Bank.", LOONEY, "GREEN"),
        _c("build-smallest", "Build: the smallest in the bank",
           "Take the smallest-sized piece available from one of the four global color "
           "stashes and add it to the system as anew ship.", GOOD_EVIL,
           "Free Actions")),
    "trade": (
        _c("trade", "Trade",
           "Swap one of your ships with a differently colored piece of the same size from the "
           "Bank.", LOONEY, "BLUE"),
        _c("trade", "Trade",
           "Swap one of your shipsin the system with an identically-sized piece of a "
           "different color from the global stash.", GOOD_EVIL,
           "Free Actions")),
    "capture": (
        _c("capture", "Capture",
           "You can only attack a ship if it’s smaller or the same size as the biggest ship YOU "
           "have in that system.", LOONEY, "RED"),
        _c("capture", "Capture",
           "cannot take control of an enemy ship if it's larger than the largest ship you "
           "own in the system.", GOOD_EVIL,
           "Free Actions")),
    "move": (
        _c("move", "Move",
           "Move a ship from the system it’s in to any other Connected system (new or known).",
           LOONEY, "YELLOW"),
        _c("move", "Move",
           "Move one of your ships from the system into any existing connected system.",
           GOOD_EVIL,
           "Free Actions")),
    "connection": (
        _c("connection", "Connections",
           "You can move a ship from one star system to another ONLY if the stars are of "
           "different sizes.", BGA, "Fundamentals of space travel"),
        _c("connection", "Connections",
           "If two systems contain the same size system marker, those two systems are not "
           "connected.", GOOD_EVIL,
           "Star-Systems and Star ships")),
    "discover": (
        _c("discover", "Discover",
           "Take a piece of your choice from the Bank, add it to the board as a star, then move "
           "your ship to that star.", LOONEY, "YELLOW"),
        _c("discover", "Discover",
           "by taking a single piece of any color from the global stash, setting it "
           "upright on the playing field, and moving your ship into it.", GOOD_EVIL,
           "Free Actions")),
    "sacrifice": (
        _c("sacrifice", "Sacrifice",
           "You get that many actions, of that ship’s color, in any systems where you still "
           "control a ship, regardless of colors you have available at that star.",
           LOONEY, "TURN OPTIONS"),
        _c("sacrifice", "Sacrifice",
           "Sacrificing a ship gives you temporary access to that color in any system you "
           "occupy.", GOOD_EVIL,
           "Sacrifice Actions")),
    "catastrophe": (
        _c("catastrophe", "Overpopulation",
           "Overpopulation exists any time a single system contains four or more pieces of the "
           "same color", LOONEY, "OVERPOPULATION"),
        _c("catastrophe", "Overpopulation",
           "If asystem contains four or more pieces of the same color (including system "
           "markers and ships of any ownership), that system contains an overpopulation of "
           "that color.", GOOD_EVIL,
           "Overpopulation and Catastrophes")),
    "catastrophe-timing": (
        _c("catastrophe-timing", "When a catastrophe may be declared",
           "After you do one of these three things, you may trigger catastrophes for any "
           "overpopulations that exist.", GOOD_EVIL, "Play"),
        _c("catastrophe-timing", "When a catastrophe may be declared",
           "At any point during your turn, if you notice an Overpopulated star system, you "
           "have the OPTION to declare a Catastrophe in that system", LOONEY, "CATASTROPHES")),
    "home": (
        _c("home", "Your home at the end of your turn",
           "You are never alowed to take an action or trigger a catastrophe that causes you "
           "to own no shipsin your Homeworld at the end of your turn.", GOOD_EVIL,
           "Elimination and Winning"),),
    "setup": (
        _c("setup", "Setup", "The setup phase consists of 6 alternating choices, with each "
           "player making 3 selections total (2 stars + 1 ship).", SPEC,
           "Initial Phase (Setup)"),
        _c("setup", "Setup", "The game begins with a setup round, during which the players "
           "choose their initial pieces.", LOONEY, "THE FIRST TURN"),
        _c("setup", "Setup",
           "Select any two pieces of any sizes and colors to represent your Homeworld, and "
           "a third piece of any size and color to represent your first starship.",
           GOOD_EVIL, "Setting Up Your Homeworld")),
    "setup-ship": (
        _c("setup-ship", "Your first ship",
           "a third piece of any size and color to represent your first starship", GOOD_EVIL,
           "Setting Up Your Homeworld"),
        _c("setup-ship", "Your first ship",
           "take a Large spaceship (of any color) and place it with your Homeworld", LOONEY,
           "THE FIRST TURN")),
    "pass": (
        _c("pass", "No pass", "On each turn, the active player must choose exactly one of the "
           "following:", SPEC, "Normal Turns"),),
}

#: (pattern of the engine's reason, the action kinds it applies to (None: any), rule);
#: the first that matches names the rule (None: a refusal no rulebook states — a name
#: that does not exist, or the C++ engine's own strict rules, docs/rules.md).
_REASONS: tuple[tuple[re.Pattern, tuple[type, ...] | None, str | None], ...] = tuple(
    (re.compile(pattern), kinds, rule) for pattern, kinds, rule in (
        (r"there is no system named|there is no seat|unknown action|already over|"
         r"suicide under these rules|must come after the turn's other actions|"
         r"refused under the strict rules|Brain Transference", None, None),
        (r"suicide is illegal", None, "home"),
        (r"do not allow passing", (Pass,), "pass"),
        (r"allow catastrophes only after", None, "catastrophe-timing"),
        (r"only the player to move may declare", None, "catastrophe-timing"),
        (r"is not overpopulated", None, "catastrophe"),
        (r"turn's one free action was already taken|replaces the turn's action|"
         r"sacrifice's actions are used up|no further action", None, "one-action"),
        (r"the sacrifice gives", None, "sacrifice"),
        (r"technology at", None, "technology"),
        (r"need a \w+ ship of your own", (Build,), "build-colour"),
        (r"smallest|pieces are left in the bank", (Build,), "build-smallest"),
        (r"not connected|cannot move to the system it is in", (Move, Discover), "connection"),
        (r"left in the bank|already exists", (Discover,), "discover"),
        (r".", (Trade,), "trade"),
        (r".", (Capture,), "capture"),
        (r".", (Move,), "move"),
        (r".", (Sacrifice,), "sacrifice"),
        (r".", (Catastrophe,), "catastrophe"),
        (r"starting ship must be of size", None, "setup-ship"),
        (r".", (Homeworld, SetupPick), "setup"),
        (r"setup", None, "setup"),
    ))


def rule_of(error: IllegalAction) -> str | None:
    """The rule ``error`` breaks (a key of ``CITATIONS``), or None when it is not one a
    rulebook states (e.g. a system name that does not exist)."""
    reason = error.reason
    for pattern, kinds, rule in _REASONS:
        if kinds is not None and not isinstance(error.action, kinds):
            continue
        if pattern.search(reason):
            return rule
    return None


def citation_for(rule: str, rules: Rules | str | None = None) -> Citation:
    """The sentence of ``rule`` from the preset's rulebook (its own first, then the book
    its rules follow). KeyError for an unknown rule."""
    choices = CITATIONS[rule]
    name = rules if isinstance(rules, str) or rules is None else rules.name
    for book in PRESET_BOOKS.get(name or "", (LOONEY, BGA)):
        for citation in choices:
            if citation.file == book:
                return citation
    return choices[0]


def cite(error: IllegalAction, rules: Rules | str | None = None) -> Citation | None:
    """The rule ``error`` breaks with its sentence from the preset's rulebook (None: no
    rule a rulebook states)."""
    rule = rule_of(error)
    return None if rule is None else citation_for(rule, rules)


__all__ = ["BOOK_NAMES", "CITATIONS", "Citation", "PRESET_BOOKS", "citation_for", "cite",
           "rule_of"]
