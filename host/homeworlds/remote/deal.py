"""The Good/Evil deal of a game played across tables, without a dealer who sees the cards
(docs/remote-play.md, "Good/Evil across tables").

002 (Good and Evil): "Mix up the cards and give one to each player." and "You may look at
your own alignment card, but you may not reveal it to any other player". At one table the
host deals and only the player's own bar shows their card. Across tables no table may learn
another player's card, so no table deals: the tables shuffle the cards together, each
locking them with a lock of its own (a "mental poker" deal, commutative encryption,
Shamir–Rivest–Adleman):

- Each card is a number ``card_element``: a hash of the game and the card's name
  (``good-0``, ``good-1``, ``evil-0`` …, the rulebook's cards for the number of players)
  squared modulo ``P``, the 2048-bit safe prime of RFC 3526 (group 14): an element of the
  subgroup of order ``Q = (P - 1) / 2``.
- Each side picks a secret exponent ``e`` (its lock; ``d = e⁻¹ mod Q`` opens it): locks
  commute, ``(m^a)^b = (m^b)^a``.
- **Shuffle**, side by side in role order (host first): each side raises every card to its
  ``e`` and shuffles them, and publishes the deck. The deck after the last side is the
  deal: position ``k`` is seat ``k``'s card, locked by every side; nobody knows which is
  which (each side knows its own shuffle only).
- **Open**, side by side again: each side removes its lock (``x^d``) from every card
  except the cards of the seats it plays. Then each seat's card is locked by its own
  table's lock only: that table opens it and nobody else can.
- **Commit**: each table publishes, for each of its seats, ``SHA-256(game, seat, card,
  salt)`` with a random 128-bit salt. The deal is done when every seat is committed.
- **Reveal** (at an elimination, 002 "Elimination and Winning", and at the end): the
  card and its salt; every table checks it against the commitment. A wrong reveal is
  refused with the reason.
- **Audit** at the end: every side publishes its exponent; every table repeats every step
  of the deal and checks each revealed card against the deck.

Why nobody can cheat or peek: a deck published is cards under locks the reader does not
hold (finding ``e`` from ``m`` and ``m^e`` is the discrete logarithm in a 2048-bit group);
a seat's card is open only to the table holding the last lock on it. A side that changes
the deck instead of shuffling it (drops or copies a card) is caught at once when the deck
has two equal cards or a card opens to no card of the deal, and in any case by the audit,
which names the step; a table that commits to another card than it was dealt is caught at
the audit (its reveal matches its commitment, not the deck).

Pure: no MQTT, no session; ``remote.game`` moves the steps between the tables.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from homeworlds.rules import Alignment, alignment_counts

#: RFC 3526, 2048-bit MODP group (id 14): a safe prime, ``P = 2Q + 1``.
P = int(
    "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A0879"
    "8E3404DDEF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B"
    "0BFF5CB6F406B7EDEE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF0598DA4836"
    "1C55D39A69163FA8FD24CF5F83655D23DCA3AD961C62F356208552BB9ED529077096966D670C354E4ABC9804"
    "F1746C08CA18217C32905E462E36CE3BE39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF6"
    "955817183995497CEA956AE515D2261898FA051015728E5A8AACAA68FFFFFFFFFFFFFFFF", 16)
Q = (P - 1) // 2
#: Hex digits of a number below P.
HEX_DIGITS = 512
SALT_BYTES = 16


class DealError(ValueError):
    """A step of the deal, a reveal or the audit that does not hold (the reason says which
    and whose)."""


def card_names(players: int) -> tuple[str, ...]:
    """The rulebook's cards for ``players``: ``good-0`` … then ``evil-0`` …."""
    good, evil = alignment_counts(players)
    return tuple(f"good-{k}" for k in range(good)) + tuple(f"evil-{k}" for k in range(evil))


def card_element(game_id: str, name: str) -> int:
    digest = hashlib.sha512(f"homeworlds remote card\n{game_id}\n{name}".encode()).digest()
    return pow(int.from_bytes(digest, "big") % P, 2, P)


def alignment_of(name: str) -> Alignment:
    return Alignment(name.split("-")[0])


def commitment(game_id: str, seat: int, alignment: str, salt: bytes) -> str:
    return hashlib.sha256(f"homeworlds remote card commitment\n{game_id}\n{seat}\n"
                          f"{alignment}\n".encode() + salt).hexdigest()


def check_deck(deck: Sequence[int], players: int, what: str, *, distinct: bool) -> None:
    """Every card a number of the group, as many as players, and (after a shuffle) no two
    equal: a deck that lost or copied a card is refused."""
    if len(deck) != players:
        raise DealError(f"{what}: {len(deck)} cards for {players} players")
    for k, x in enumerate(deck):
        if not 1 < x < P - 1 or pow(x, Q, P) != 1:
            raise DealError(f"{what}: card {k} is not a card of this deal")
    if distinct and len(set(deck)) != len(deck):
        raise DealError(f"{what}: two cards are the same (a card was copied or lost)")


@dataclass
class SideDeal:
    """One side's part of the deal: its lock (``exponent``), its seats, and what it learnt.
    ``steps`` keeps every deck published, by (phase, side index), for the audit."""

    game_id: str
    players: int
    side: int
    sides: int
    seats: frozenset[int]
    exponent: int = field(default_factory=lambda: secrets.randbelow(Q - 3) + 2, repr=False)
    #: The cards of this side's seats once opened: seat -> (alignment, salt).
    cards: dict[int, tuple[Alignment, bytes]] = field(default_factory=dict, repr=False)
    steps: dict[tuple[str, int], tuple[int, ...]] = field(default_factory=dict, repr=False)

    @property
    def inverse(self) -> int:
        return pow(self.exponent, -1, Q)

    def first_deck(self) -> tuple[int, ...]:
        return tuple(card_element(self.game_id, n) for n in card_names(self.players))

    def shuffle(self, deck: Sequence[int]) -> tuple[int, ...]:
        """This side's shuffle step: every card locked with ``exponent``, then shuffled."""
        locked = [pow(x, self.exponent, P) for x in deck]
        secrets.SystemRandom().shuffle(locked)
        return tuple(locked)

    def open_others(self, deck: Sequence[int]) -> tuple[int, ...]:
        """This side's open step: its lock removed from every card but its own seats'."""
        inverse = self.inverse
        return tuple(x if seat in self.seats else pow(x, inverse, P)
                     for seat, x in enumerate(deck))

    def take_cards(self, deck: Sequence[int]) -> dict[int, str]:
        """The deck after every side's open step: this side opens its seats' cards, keeps
        them with a fresh salt each, and returns the commitments to publish (seat ->
        hash). DealError when a card opens to no card of the deal."""
        names = {card_element(self.game_id, n): n for n in card_names(self.players)}
        inverse = self.inverse
        out = {}
        for seat in sorted(self.seats):
            name = names.get(pow(deck[seat], inverse, P))
            if name is None:
                raise DealError(f"seat {seat}'s card opens to no card of this deal: a table "
                                "changed the deck")
            salt = secrets.token_bytes(SALT_BYTES)
            self.cards[seat] = (alignment_of(name), salt)
            out[seat] = commitment(self.game_id, seat, alignment_of(name), salt)
        return out


def check_reveal(game_id: str, seat: int, alignment: str, salt: bytes,
                 committed: str | None) -> None:
    """A card revealed for ``seat`` must be the one its table committed to at the deal."""
    if committed is None:
        raise DealError(f"seat {seat} revealed a card before committing to one")
    if not hmac.compare_digest(commitment(game_id, seat, alignment, salt), committed):
        raise DealError(f"seat {seat}'s reveal ({alignment}) does not match the commitment "
                        "its table made at the deal")


def audit(game_id: str, players: int, owners: Sequence[int],
          steps: Mapping[tuple[str, int], Sequence[int]], exponents: Sequence[int],
          revealed: Mapping[int, str]) -> None:
    """Repeat the whole deal with every side's exponent (published at the end): each
    shuffle a permutation of the deck before it under that side's lock, each open step the
    locks removed but from the side's own seats, and each revealed card the card the deck
    gives that seat. ``owners[seat]``: the side index playing ``seat``. DealError naming
    the first step or seat that does not hold."""
    deck: tuple[int, ...] = tuple(card_element(game_id, n) for n in card_names(players))
    for side, e in enumerate(exponents):
        if not 1 < e < Q:
            raise DealError(f"side {side}'s exponent is not a lock of this deal")
        out = tuple(steps[("shuffle", side)])
        if sorted(pow(x, e, P) for x in deck) != sorted(out):
            raise DealError(f"side {side}'s shuffle is not the deck before it, locked and "
                            "shuffled: it changed the cards")
        deck = out
    for side, e in enumerate(exponents):
        inverse = pow(e, -1, Q)
        expected = tuple(x if owners[seat] == side else pow(x, inverse, P)
                         for seat, x in enumerate(deck))
        out = tuple(steps[("open", side)])
        if out != expected:
            raise DealError(f"side {side}'s open step did not remove exactly its own lock")
        deck = out
    names = {card_element(game_id, n): n for n in card_names(players)}
    for seat, alignment in sorted(revealed.items()):
        name = names.get(pow(deck[seat], pow(exponents[owners[seat]], -1, Q), P))
        if name is None or alignment_of(name) != alignment:
            raise DealError(f"seat {seat} revealed {alignment}, but the deal gave them "
                            f"{alignment_of(name) if name else 'no card'}")
