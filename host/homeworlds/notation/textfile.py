"""Reading a notation file whole, within a size limit, as UTF-8.

Transcripts and position files are small (the longest archive game, SDG 756, is 33 KB);
the readers build every turn in memory (about 880 bytes a turn: a 1 MiB file of one-word
turns replays in 72 MB). A file over
``MAX_NOTATION_BYTES`` is refused before it is read whole, so that a command's memory stays
bounded whatever it is given (docs/replay.md, "Limits").
"""

from __future__ import annotations

from os import PathLike
from pathlib import Path

from homeworlds.rules import InvalidNotation

#: 1 MiB: thirty times the longest game in the archive.
MAX_NOTATION_BYTES = 1 << 20
#: Numbers in notation (game and turn numbers, seats) have at most this many digits; Python
#: refuses to convert more than 4300 digits, and no game has a billion turns.
MAX_NUMBER_DIGITS = 9


def read_notation_text(path: str | PathLike[str], *, limit: int = MAX_NOTATION_BYTES) -> str:
    """The text of a notation file. InvalidNotation names the file (and the line of a byte
    that is not UTF-8); OSError is left to the caller."""
    path = Path(path)
    with open(path, "rb") as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise InvalidNotation(f"larger than {limit:,} bytes: refused (a game transcript or "
                              f"position is a few kilobytes; the limit keeps memory bounded)",
                              source=str(path))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        raise InvalidNotation(f"not UTF-8 text ({error.reason} at byte {error.start}): save "
                              "the file as UTF-8", line=line, source=str(path)) from None


def small_number(digits: str, what: str, text: str) -> int:
    """``int(digits)`` for a number in notation, refusing one too long to be real."""
    if len(digits) > MAX_NUMBER_DIGITS:
        raise InvalidNotation(f"{what} {digits[:12]}... has {len(digits)} digits (at most "
                              f"{MAX_NUMBER_DIGITS}) in {text[:60]!r}", text)
    return int(digits)


def notation_format(text: str) -> str:
    """Which notation a file's text is in: "sdg" or "cooked", from the first line that is not
    blank (nor a cooked comment)."""
    for line in text.split("\n"):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("Homeworlds Online"):
            return "sdg"
        if stripped.startswith("#") or "(" in stripped:
            return "cooked"  # a comment or a system line: 'Name (0, y1b2) g3-'
        return "sdg"  # the SDG reader names what it expected on this line
    return "sdg"
