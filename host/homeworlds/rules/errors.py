"""The three kinds of error the rules layer raises, python-chess style.

Each carries the offending input and, where there is one, the position it
was checked against, so that a message can name both.
"""

from __future__ import annotations


class HomeworldsError(Exception):
    """Base of every error raised by the rules and notation layers."""


class InvalidNotation(HomeworldsError, ValueError):
    """Text that is not well-formed notation, whatever the position."""

    def __init__(self, message: str, text: str | None = None, *, line: int | None = None,
                 source: str | None = None):
        self.text = text
        self.line = line
        self.source = source
        where = ""
        if source is not None:
            where = f"{source}:{line}: " if line is not None else f"{source}: "
        elif line is not None:
            where = f"line {line}: "
        super().__init__(where + message)


class IllegalAction(HomeworldsError, ValueError):
    """A well-formed action (or turn) that the rules forbid in this position."""

    def __init__(self, message: str, action: object = None, position: object = None):
        self.action = action
        self.position = position
        self.reason = message
        super().__init__(message)


class IllegalTurn(IllegalAction):
    """A whole turn that is illegal as a whole (for example it ends in suicide)."""


class AmbiguousAction(HomeworldsError, ValueError):
    """Partial notation that more than one legal action or turn fits."""

    def __init__(self, message: str, action: object = None, position: object = None,
                 candidates: tuple = ()):
        self.action = action
        self.position = position
        self.candidates = candidates
        super().__init__(message)
