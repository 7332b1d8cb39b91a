"""The invitation to a remote game: one code that both tables hold, and nobody else.

The inviting table makes a fresh random code (120 bits) and shows it; its player reads it
to the other player by a channel they trust (in person, a phone call, a private message);
the other table types it in. Everything else comes from the code, the same at both ends:

- the game's id (public: it names the broker topics) is a hash of the code;
- each side's signing key (``homeworlds.identity.TableKey``, HMAC-SHA256, docs/event.md
  "Identity") is derived from the code and the side's role (``host``: the inviting
  table, ``guest``: the other one).

Someone who sees every message on the broker learns the game id, never the code: they
cannot sign a turn. A code looks like ``hw-k3f9q-a7m2x-pd4wn-c8ter-vb5hz``; its last letter
is a check letter, so a mistyped code is refused at once instead of joining nothing.
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
ROLES = ("host", "guest")


class InvitationError(ValueError):
    """Not an invitation code (the reason says what is wrong with it)."""


def _check_letter(secret: bytes) -> str:
    return ALPHABET[hashlib.sha256(b"homeworlds remote check\n" + secret).digest()[0] % 32]


def _letters(secret: bytes) -> str:
    number = int.from_bytes(secret, "big")
    return "".join(ALPHABET[(number >> (5 * i)) & 31] for i in reversed(range(LETTERS)))


@dataclass(frozen=True)
class Invitation:
    """One remote game's shared secret; ``secret`` is never shown in a repr."""

    secret: bytes = field(repr=False)

    def __post_init__(self) -> None:
        if len(self.secret) != SECRET_BYTES:
            raise InvitationError(f"an invitation holds {SECRET_BYTES} bytes, "
                                  f"not {len(self.secret)}")

    @classmethod
    def new(cls) -> Invitation:
        return cls(secrets.token_bytes(SECRET_BYTES))

    @property
    def code(self) -> str:
        """The code to read out: ``hw-`` and five groups of five letters."""
        text = _letters(self.secret) + _check_letter(self.secret)
        return PREFIX + "-" + "-".join(text[i:i + 5] for i in range(0, len(text), 5))

    @classmethod
    def from_code(cls, text: str) -> Invitation:
        """A typed code (case, spaces and dashes do not matter); InvitationError naming
        what is wrong."""
        cleaned = "".join(c for c in text.lower() if not c.isspace() and c != "-")
        if cleaned.startswith(PREFIX):
            cleaned = cleaned[len(PREFIX):]
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
        if _check_letter(secret) != cleaned[-1]:
            raise InvitationError("the invitation code is mistyped (its check letter does "
                                  "not match): read it again from the other table")
        return cls(secret)

    @property
    def game_id(self) -> str:
        """The game's public name (16 hex digits): it reveals nothing of the code."""
        return hashlib.sha256(b"homeworlds remote game\n" + self.secret).hexdigest()[:16]

    def key(self, role: str) -> TableKey:
        """The signing key of ``role`` (``host`` or ``guest``) in this game."""
        if role not in ROLES:
            raise ValueError(f"role {role!r}: 'host' or 'guest'")
        secret = hmac.new(self.secret, b"homeworlds remote key\n" + role.encode(),
                          hashlib.sha256).digest()
        return TableKey(f"{self.game_id}-{role}", f"{self.game_id}.{role}", secret)


def other_role(role: str) -> str:
    if role not in ROLES:
        raise ValueError(f"role {role!r}: 'host' or 'guest'")
    return ROLES[1 - ROLES.index(role)]
