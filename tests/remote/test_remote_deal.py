"""The Good/Evil deal across tables (``remote.deal``): three sides shuffle and open the
cards among themselves; each learns its own card only, the reveals are checked against
the commitments, and the audit at the end finds a side that changed the deck or lied."""

from __future__ import annotations

import pytest

from homeworlds.remote.deal import DealError, P, SideDeal, audit, check_deck, check_reveal
from homeworlds.rules import Alignment

GAME = "0123456789abcdef"


def deal(players: int = 3, owners: tuple[int, ...] = (0, 1, 2), cheat=None):
    sides = max(owners) + 1
    deals = [SideDeal(GAME, players, k, sides,
                      frozenset(s for s, o in enumerate(owners) if o == k))
             for k in range(sides)]
    steps = {}
    deck = deals[0].first_deck()
    for k, side in enumerate(deals):
        deck = side.shuffle(deck)
        if cheat is not None and k == 1:
            deck = cheat(deck)
        check_deck(deck, players, f"side {k}'s shuffle", distinct=True)
        steps[("shuffle", k)] = deck
    for k, side in enumerate(deals):
        deck = side.open_others(deck)
        check_deck(deck, players, f"side {k}'s open step", distinct=False)
        steps[("open", k)] = deck
    commitments = {}
    for side in deals:
        commitments.update(side.take_cards(deck))
    return deals, steps, commitments


def test_three_sides_deal_the_rulebooks_cards_each_learning_only_its_own():
    """002 (Good and Evil): "there should be one more Good card than there are Evil cards.
    Mix up the cards and give one to each player." — three players: two Good, one Evil."""
    deals, steps, commitments = deal()
    cards = [side.cards for side in deals]
    assert [sorted(c) for c in cards] == [[0], [1], [2]]  # each its own seat only
    alignments = [c[k][0] for k, c in enumerate(cards)]
    assert sorted(alignments) == [Alignment.EVIL, Alignment.GOOD, Alignment.GOOD]
    # Nothing published names a card: the decks are numbers under locks.
    plain = {side.first_deck() for side in deals}.pop()
    for published in steps.values():
        assert not set(published) & set(plain)
    assert sorted(commitments) == [0, 1, 2]


def test_a_table_of_two_seats_opens_both_and_the_reveal_is_checked():
    deals, steps, commitments = deal(players=4, owners=(0, 1, 0, 2))
    assert sorted(deals[0].cards) == [0, 2]
    alignment, salt = deals[1].cards[1]
    check_reveal(GAME, 1, alignment, salt, commitments[1])
    other = Alignment.GOOD if alignment == Alignment.EVIL else Alignment.EVIL
    with pytest.raises(DealError, match="seat 1's reveal .* does not match the commitment"):
        check_reveal(GAME, 1, other, salt, commitments[1])
    with pytest.raises(DealError, match="before committing"):
        check_reveal(GAME, 1, alignment, salt, None)


def test_the_audit_passes_an_honest_deal_and_names_a_copied_card_or_a_lie():
    deals, steps, _ = deal()
    exponents = [side.exponent for side in deals]
    revealed = {seat: side.cards[seat][0] for side in deals for seat in side.cards}
    audit(GAME, 3, (0, 1, 2), steps, exponents, revealed)
    liar = dict(revealed)
    liar[2] = Alignment.GOOD if revealed[2] == Alignment.EVIL else Alignment.EVIL
    with pytest.raises(DealError, match=f"seat 2 revealed {liar[2]}, but the deal gave"):
        audit(GAME, 3, (0, 1, 2), steps, exponents, liar)
    # Side 1 copies a card over another (to deal two Evil cards): refused at once.
    with pytest.raises(DealError, match="side 1's shuffle: two cards are the same"):
        deal(cheat=lambda d: (d[0], d[0], d[2]))
    # ... or swaps a card for a number of its own: its owner cannot open it.
    with pytest.raises(DealError, match="opens to no card of this deal|not a card"):
        deal(cheat=lambda d: (d[0], d[1], pow(d[2], 2, P)))
