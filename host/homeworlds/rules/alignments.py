"""Secret Good/Evil alignments of the original 2-6 player rules (``good-evil`` preset).

The deal follows 002 (Good and Evil): "The number of cards that you gather should be equal
to the total number of players. If there is an even number of players, half of the cards
should be Good and the other half Evil; … there should be one more Good card than there are
Evil cards. Mix up the cards and give one to each player." Alignments are kept in seat
order (seat 0 sets up first); as text they are written ``good,evil,good``.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from enum import StrEnum


class Alignment(StrEnum):
    GOOD = "good"
    EVIL = "evil"


Alignments = tuple[Alignment, ...]


class AlignmentError(ValueError):
    """Alignments that are not a deal of the rulebook's cards for the seats at the table."""


def alignment_counts(players: int) -> tuple[int, int]:
    """(Good cards, Evil cards) for ``players``: half each, one more Good for an odd count."""
    if players < 2:
        raise AlignmentError(f"alignments are dealt to 2 or more players, not {players}")
    return (players + 1) // 2, players // 2


def deal_alignments(players: int, seed: int) -> Alignments:
    """Shuffle the rulebook's cards with ``seed`` and give one to each seat, in seat order."""
    good, evil = alignment_counts(players)
    cards = [Alignment.GOOD] * good + [Alignment.EVIL] * evil
    random.Random(seed).shuffle(cards)
    return tuple(cards)


def check_alignments(alignments: Iterable[str], players: int) -> Alignments:
    """The alignments as values, or AlignmentError saying what is wrong with them."""
    given = tuple(alignments)
    values = []
    for seat, word in enumerate(given):
        try:
            values.append(Alignment(str(word).strip().lower()))
        except ValueError:
            raise AlignmentError(f"seat {seat}: {word!r} is not an alignment (good or "
                                 "evil)") from None
    if len(values) != players:
        raise AlignmentError(f"{len(values)} alignments for {players} players: give one per "
                             "seat, in setup order")
    good, evil = alignment_counts(players)
    if values.count(Alignment.GOOD) != good:
        raise AlignmentError(f"{alignments_to_text(values)}: {players} players are dealt "
                             f"{good} Good and {evil} Evil (half each, one more Good for an "
                             "odd count)")
    return tuple(values)


def alignments_from_text(text: str, players: int) -> Alignments:
    """``"good,evil,good"`` (case and spaces ignored) -> alignments, checked."""
    return check_alignments((w for w in text.split(",")), players)


def alignments_to_text(alignments: Iterable[str]) -> str:
    return ",".join(str(a) for a in alignments)
