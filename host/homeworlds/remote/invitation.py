"""The invitation to a remote game: one code that every table of the game holds, and
nobody else.

The inviting table makes a fresh random code (120 bits) and shows it; its player reads it
to the other players by a channel they trust (in person, a phone call, a private message);
the other tables type it in. Everything else comes from the code, the same at every end:

- how many tables (*sides*) play: two for a code ``hw-…`` (the first codes made, which
  stores and code files still hold), three to six for ``hw3-…`` to ``hw6-…``;
- the sides' roles: ``host`` (the inviting table) and ``guest`` with two sides; ``host``,
  ``guest1``, ``guest2``, … with more;
- the game's id (public: it names the broker topics) is a hash of the code;
- each side's signing key (``homeworlds.identity.TableKey``, HMAC-SHA256, docs/event.md
  "Identity") is derived from the code and the side's role.

Someone who sees every message on the broker learns the game id, never the code: they
cannot sign a turn. A code looks like ``hw-k3f9q-a7m2x-pd4wn-c8ter-vb5hz``; its last letter
is a check letter (over the secret and the number of sides), so a mistyped code is refused
at once instead of joining nothing.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass, field

from homeworlds.identity import TableKey

#: Base32 letters (RFC 4648, lower case): no 0/1/8/9, which are easy to mistake.
ALPHABET = "abcdefghijklmnopqrstuvwxyz234567"
#: Bytes of the secret (120 bits: 24 letters).
SECRET_BYTES = 15
LETTERS = SECRET_BYTES * 8 // 5
PREFIX = "hw"
#: The roles of a two-side game (the first codes: ``hw-…``).
ROLES = ("host", "guest")
#: Sides a game may have: two tables up to one table per player of six.
MIN_SIDES, MAX_SIDES = 2, 6


def roles_for(sides: int) -> tuple[str, ...]:
    """The roles of a game of ``sides`` tables, in side order (side 0 invited)."""
    if not MIN_SIDES <= sides <= MAX_SIDES:
        raise InvitationError(f"a remote game has {MIN_SIDES} to {MAX_SIDES} tables, "
                              f"not {sides}")
    if sides == 2:
        return ROLES
    return ("host",) + tuple(f"guest{k}" for k in range(1, sides))


class InvitationError(ValueError):
    """Not an invitation code (the reason says what is wrong with it)."""


def _check_letter(secret: bytes, sides: int = 2) -> str:
    """The secret's check letter, moved on by the count of tables (two: not moved, as the
    first codes): a count changed by hand (3 to 6, or none for two) always gives another
    letter, so it is always caught, as a mistyped letter of the secret is 31 times in 32."""
    shift = 0 if sides == 2 else sides
    return ALPHABET[(hashlib.sha256(b"homeworlds remote check\n" + secret).digest()[0]
                     + shift) % 32]


def _letters(secret: bytes) -> str:
    number = int.from_bytes(secret, "big")
    return "".join(ALPHABET[(number >> (5 * i)) & 31] for i in reversed(range(LETTERS)))


@dataclass(frozen=True)
class Invitation:
    """One remote game's shared secret and how many tables (``sides``) play it;
    ``secret`` is never shown in a repr."""

    secret: bytes = field(repr=False)
    sides: int = 2

    def __post_init__(self) -> None:
        if len(self.secret) != SECRET_BYTES:
            raise InvitationError(f"an invitation holds {SECRET_BYTES} bytes, "
                                  f"not {len(self.secret)}")
        roles_for(self.sides)  # InvitationError for a count out of range

    @classmethod
    def new(cls, sides: int = 2) -> Invitation:
        return cls(secrets.token_bytes(SECRET_BYTES), sides)

    @property
    def roles(self) -> tuple[str, ...]:
        """Every side's role, in side order (``host`` first)."""
        return roles_for(self.sides)

    @property
    def code(self) -> str:
        """The code to read out: ``hw-`` (``hw3-`` … ``hw6-`` for three to six tables) and
        five groups of five letters."""
        text = _letters(self.secret) + _check_letter(self.secret, self.sides)
        prefix = PREFIX if self.sides == 2 else f"{PREFIX}{self.sides}"
        return prefix + "-" + "-".join(text[i:i + 5] for i in range(0, len(text), 5))

    @classmethod
    def from_code(cls, text: str) -> Invitation:
        """A typed code (case, spaces and dashes do not matter); InvitationError naming
        what is wrong."""
        cleaned = "".join(c for c in text.lower() if not c.isspace() and c != "-")
        if cleaned.startswith(PREFIX):
            cleaned = cleaned[len(PREFIX):]
        sides = 2
        # ``hw3…``: a count of tables before the letters (told apart from a first letter
        # that is a digit by the length: the letters are always LETTERS + 1).
        if len(cleaned) == LETTERS + 2 and cleaned[0].isdigit():
            sides = int(cleaned[0])
            if not 3 <= sides <= MAX_SIDES:
                raise InvitationError(f"an invitation code names 3 to {MAX_SIDES} tables "
                                      f"after 'hw' (or none: two tables), not {sides}")
            cleaned = cleaned[1:]
        if len(cleaned) != LETTERS + 1:
            raise InvitationError(f"an invitation code has {LETTERS + 1} letters after "
                                  f"'hw-', not {len(cleaned)}")
        wrong = sorted({c for c in cleaned if c not in ALPHABET})
        if wrong:
            raise InvitationError("an invitation code has only the letters a-z and the "
                                  f"digits 2-7, not {' '.join(map(repr, wrong))}")
        number = 0
        for c in cleaned[:LETTERS]:
            number = number << 5 | ALPHABET.index(c)
        secret = number.to_bytes(SECRET_BYTES, "big")
        if _check_letter(secret, sides) != cleaned[-1]:
            raise InvitationError("the invitation code is mistyped (its check letter does "
                                  "not match): read it again from the other table")
        return cls(secret, sides)

    @property
    def game_id(self) -> str:
        """The game's public name (16 hex digits): it reveals nothing of the code."""
        extra = b"" if self.sides == 2 else f"\n{self.sides}".encode()
        return hashlib.sha256(b"homeworlds remote game\n" + self.secret + extra
                              ).hexdigest()[:16]

    def key(self, role: str) -> TableKey:
        """The signing key of ``role`` (one of ``roles``) in this game."""
        if role not in self.roles:
            raise ValueError(f"role {role!r}: one of {', '.join(self.roles)}")
        secret = hmac.new(self.secret, b"homeworlds remote key\n" + role.encode(),
                          hashlib.sha256).digest()
        return TableKey(f"{self.game_id}-{role}", f"{self.game_id}.{role}", secret)


def other_role(role: str) -> str:
    if role not in ROLES:
        raise ValueError(f"role {role!r}: 'host' or 'guest'")
    return ROLES[1 - ROLES.index(role)]
