"""Text from files made safe to print on a terminal.

Names and actions come from transcripts, position files and configurations; a control
character in them (ESC, CSI, a carriage return, a bell) would drive the user's terminal:
change colours, move the cursor, rewrite earlier lines. ``printable`` shows each such
character as a visible escape (``\\x1b``) instead; line breaks the program itself puts
between lines are kept by ``printable_lines``.
"""

from __future__ import annotations


def _escape(ch: str) -> str:
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def printable(text: str) -> str:
    """``text`` with every non-printable character (control, format, line and paragraph
    separators; spaces other than ' ') shown as an escape."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else _escape(ch) for ch in text)


def printable_lines(text: str) -> str:
    """Like ``printable``, keeping the ``\\n`` between lines."""
    return "\n".join(printable(line) for line in text.split("\n"))
