"""A Good/Evil game across three tables against a real mosquitto (issue 30: "Good/Evil
deals for 3+ players across tables"): the tables deal the cards among themselves
(``remote.deal``), each learns only its own player's card, the cards an elimination
reveals are checked against the commitments made at the deal and decide the game on every
table alike, and the deal is audited at the end. A reveal that does not match its
commitment is refused with the reason."""

from __future__ import annotations

import time

import pytest

from homeworlds.notation import parse_sdg_action, read_sdg, sdg_game, write_sdg
from homeworlds.remote.messages import Reveal
from homeworlds.rules import Alignment, deal_alignments, preset
from homeworlds.session import AdminCommand
from tests.remote.multi_tables import play_game, tables_for
from tests.remote.tables import pump

NAMES = ("Ann", "Bob", "Cat")
#: Made up (the archive has no Good/Evil game): Ann trades for a large red ship, flies to
#: Bob's home and captures his only ship: Bob is eliminated at the end of turn 13.
TURNS = [("Ann", "Homeworld Y1 B2 G3"), ("Bob", "Homeworld Y3 G3 G1"),
         ("Cat", "Homeworld R2 B1 G3"), ("Ann", "Build G1 Ann"), ("Bob", "Pass"),
         ("Cat", "Build G1 Cat"), ("Ann", "Trade G3 R3 Ann"), ("Bob", "Pass"), ("Cat", "Pass"),
         ("Ann", "Move R3 Ann Bob"), ("Bob", "Pass"), ("Cat", "Pass"), ("Ann", "Attack G1 Bob")]


def game_text():
    turns = [(parse_sdg_action(text, player=who),) for who, text in TURNS]
    return read_sdg(write_sdg(sdg_game(NAMES, turns, rules="good-evil")))


@pytest.fixture
def dealt(tmp_path, broker):
    # Each table's session starts with a stand-in deal of its own: never shown, replaced
    # by the deal the tables make together.
    tables = tables_for(tmp_path, broker.url, NAMES, preset("good-evil"), 0,
                        alignments=deal_alignments(3, 99))
    try:
        start = time.monotonic()
        pump(tables, lambda: all(t.game.paused is None for t in tables),
             "the tables deal the cards", timeout=90)
        print(f"\nthree tables met and dealt the Good/Evil cards in "
              f"{time.monotonic() - start:.2f} s")  # the figure (pytest -s)
        yield tables
    finally:
        for table in tables:
            table.close()


def test_three_tables_deal_in_secret_and_a_reveal_decides_the_game_on_every_table(dealt):
    """002 (Good and Evil): "You may look at your own alignment card, but you may not
    reveal it to any other player"; (Elimination and Winning): "At the end of your turn,
    if you've eliminated someone, reveal your secret alignment (if you haven't aready);
    any players that you eliminated should aso reveal their aignments"."""
    tables = dealt
    cards = [t.game.cards for t in tables]
    # Each table knows one card, its own player's; the three make the rulebook's deal.
    assert [sorted(c.known) for c in cards] == [[0], [1], [2]]
    deal = tuple(c.known[k] for k, c in enumerate(cards))
    assert sorted(deal) == [Alignment.EVIL, Alignment.GOOD, Alignment.GOOD]
    for table in tables:
        state = table.session.tracker.state
        assert state.secret_seats == frozenset({0, 1, 2} - {table.seat})
        assert state.revealed_alignments() == {}
        # The seat button shows this table's own card only (Bob's button at Ann's table
        # shows nothing: that card is not here).
        other = (table.seat + 1) % 3
        assert table.session._shows_alignment(other) is False
    assert tables[1].session._shows_alignment(1) is True  # Bob is not to move
    assert tables[1].session.lights._alignment_shown[0] == 1
    # What the table stores, exports and prints holds no stand-in.
    assert tables[1].session.tracker.known_alignments == (None, deal[1], None)

    reference = play_game(tables, game_text(), alignments=deal)
    # Ann and Bob revealed; every table knows both cards, checked, and the same result.
    assert reference.revealed_alignments() == {0: deal[0], 1: deal[1]}
    for table in tables:
        state = table.session.tracker.state
        assert state.revealed_alignments() == {0: deal[0], 1: deal[1]}
        assert state.result == reference.result
    notes = [n for n in tables[2].session.notices if "card:" in n]
    assert any("Bob's card: " + deal[1].capitalize() in n for n in notes), notes
    if reference.result is None:
        # Ann and Bob were Good: Cat (Evil) plays on against Ann; Cat leaves: Ann wins.
        tables[2].sim.command(AdminCommand("resign", seat=2))
        pump(tables, lambda: all(t.session.tracker.is_over for t in tables),
             "Cat resigns at their table; the game ends on every table")
    # The end: every table reveals its cards and its lock; the deal is audited.
    pump(tables, lambda: all(t.game.cards.audit_result == "" for t in tables),
         "every table audits the deal", timeout=60)
    for table in tables:
        assert table.game.cards.known == dict(enumerate(deal))
        assert any("the deal checks" in n for n in table.session.notices)
        assert table.session.tracker.known_alignments == deal


def test_a_reveal_that_does_not_match_its_commitment_is_refused_with_the_reason(dealt):
    tables = dealt
    cat = tables[2]
    dealt_card, salt = cat.game.cards.deal.cards[2]
    lie = "good" if dealt_card == Alignment.EVIL else "evil"
    cat.game._say(Reveal(cat.game.game_id, 2, lie, salt.hex()))
    # And a table revealing a card of a seat it does not play.
    cat.game._say(Reveal(cat.game.game_id, 0, "good", salt.hex()))
    pump(tables, lambda: all(len([r for r in t.game.refusals if r.side == "here"]) >= 2
                             for t in tables[:2]), "both other tables refuse both")
    for table in tables[:2]:
        reasons = [r.reason for r in table.game.refusals if r.side == "here"]
        assert any(f"seat 2's reveal ({lie}) does not match the commitment its table made "
                   "at the deal" in r for r in reasons), reasons
        assert any("revealed the card of seat 0, which it does not play" in r
                   for r in reasons), reasons
        assert 2 not in table.game.cards.known
        assert table.session.tracker.state.revealed_alignments() == {}
    pump(tables, lambda: len([r for r in cat.game.refusals if r.side == "there"]) >= 4,
         "Cat's table hears why")


def test_a_table_whose_side_restarts_keeps_its_card_and_reveals_it_as_committed(dealt):
    """Bob's table's side is made again mid-game (as a restarted host makes it, from the
    deal file beside its code): it knows Bob's card again, and when Ann captures Bob's
    ship it reveals it with the salt it committed to: every table takes it."""
    tables = dealt
    deal = tuple(t.game.cards.known[t.seat] for t in tables)
    game = game_text()
    play_game(tables, game, turns=10, alignments=deal)
    bob = tables[1]
    assert bob.recorder.path.with_suffix(".deal").stat().st_mode & 0o777 == 0o600
    bob.disconnect()
    bob.connect()  # a new side: nothing in memory but what its store and deal file keep
    assert bob.game.cards.known == {1: deal[1]} and bob.game.cards.dealt
    pump(tables, lambda: all(t.game.paused is None for t in tables), "Bob's table is back")
    assert bob.session.tracker.state.secret_seats == frozenset({0, 2})
    reference = play_game(tables, game, alignments=deal, start=10)
    for table in tables:
        assert table.session.tracker.state.revealed_alignments() == {0: deal[0], 1: deal[1]}
        assert table.session.tracker.state.result == reference.result


def test_a_deal_file_of_another_game_is_refused_with_the_configuration(tmp_path):
    import json

    from homeworlds.remote.invitation import Invitation
    from homeworlds.remote.settings import RemoteSettings, RemoteSettingsError

    code = tmp_path / "remote.code"
    code.write_text(Invitation.new(sides=3).code + "\n")
    code.chmod(0o600)
    (tmp_path / "remote.code.deal").write_text(json.dumps({"game": "0" * 16, "side": 2}))
    with pytest.raises(RemoteSettingsError, match="remote.code_file: .*remote.code.deal is "
                                                  "the Good/Evil deal of another game"):
        RemoteSettings.from_mapping({"broker": "mqtt://b", "role": "guest2",
                                     "code_file": "remote.code"}, base=tmp_path)
    (tmp_path / "remote.code.deal").write_text("{")
    with pytest.raises(RemoteSettingsError, match="not a Good/Evil deal file"):
        RemoteSettings.from_mapping({"broker": "mqtt://b", "role": "guest2",
                                     "code_file": "remote.code"}, base=tmp_path)


def test_a_remote_good_evil_table_starts_knowing_no_card(tmp_path):
    """As ``play`` builds it: the session's deal is a stand-in until the tables have
    dealt, so the store gets no card and the terminal prints none it does not know."""
    from homeworlds.remote.game import RemoteSide
    from homeworlds.remote.invitation import Invitation
    from homeworlds.runtime.config import load_config
    from homeworlds.runtime.table import session_from_config
    from homeworlds.runtime.terminal import reveal_alignments
    from homeworlds.sim import make_registry
    from homeworlds.table.layout import builtin_layout

    make_registry(builtin_layout("four-seat"), 3, copies=5).save(tmp_path / "registry.toml")
    code = tmp_path / "remote.code"
    code.write_text(Invitation.new(sides=3).code + "\n")
    code.chmod(0o600)
    (tmp_path / "table.toml").write_text(
        '[table]\nlayout = "four-seat"\nregistry = "registry.toml"\nrules = "good-evil"\n'
        'players = ["Ann", "Bob", "Cat"]\n[remote]\nbroker = "mqtt://b"\nrole = "guest1"\n'
        'code_file = "remote.code"\n')
    config = load_config(tmp_path / "table.toml")
    session = session_from_config(config, None, RemoteSide())
    assert session.tracker.state.secret_seats == frozenset({0, 1, 2})
    assert session.tracker.known_alignments == (None, None, None)
    assert session._shows_alignment(1) is False
    assert reveal_alignments(NAMES, (None, "evil", None)) == (
        "Alignments revealed: Ann (not known here yet: their table reveals it), Bob Evil, "
        "Cat (not known here yet: their table reveals it)")
