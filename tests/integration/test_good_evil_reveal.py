"""Good/Evil at the table: an elimination in the middle of a game of three reveals the
eliminating and the eliminated players' alignments at the end of that turn — on the LEDs,
the terminal, the display feed and the record — and the game goes on (issue 28, item 3)."""

from __future__ import annotations

from homeworlds.feed import FeedProducer, event_from_json
from homeworlds.hints.render import ALIGNMENT_COLORS
from homeworlds.notation import read_sdg_file
from homeworlds.rules import deal_alignments, preset
from homeworlds.runtime.table_replay import SimulatedTableGame
from homeworlds.session import REVEAL_SHOWN_S, Stage
from tests.integration.play_host import PlayHost, play_turns, turns_in

PLAYERS = ("Ann", "Bob", "Cat")
#: ``deal_alignments(3, SEED)`` deals Ann and Bob Good, Cat Evil.
SEED = 5
#: Ann (Good) captures Bob's (Good) only ship at his home in turn 10: Bob is eliminated,
#: Evil Cat is still in the game, so it goes on.
TURNS = ["Homeworld G1 Y2 R3", "Homeworld Y3 B3 G1", "Homeworld G2 B1 Y3", "Build R1 Ann",
         "Trade G1 Y1 Bob", "Build Y1 Cat", "Move R3 Ann Bob", "Pass", "Pass",
         "Attack Y1 Bob", "Pass", "Pass"]


def _sdg_turn(text: str, player: str):
    from homeworlds.notation import parse_sdg_action

    return tuple(parse_sdg_action(a.strip(), player=player) for a in text.split(";"))


def test_the_deal_is_good_good_evil():
    assert deal_alignments(3, SEED) == ("good", "good", "evil")


def test_play_reveals_at_an_elimination_on_the_terminal_and_in_the_record(
        tmp_path, sim_table, capsys):
    """002 (Elimination and Winning): "At the end of your turn, if you've eliminated someone,
    reveal your secret alignment (if you haven't aready); any players that you eliminated
    should aso reveal their aignments (if they haven't already)." """
    sim = sim_table(rules="good-evil", players=PLAYERS, layout="four-seat",
                    table=f"alignment_seed = {SEED}\n")
    record = tmp_path / "game.raw"
    host = PlayHost(sim.config, record)
    try:
        play_turns(sim.driver(alignments=deal_alignments(3, SEED)), TURNS,
                   lambda n: turns_in(record) == n, players=PLAYERS)
    finally:
        host.close()
    out = capsys.readouterr().out
    assert "turn 10: alignments revealed: Ann Good, Bob Good" in out
    assert "Cat Evil" not in out  # Cat eliminated nobody and was not eliminated
    game = read_sdg_file(record)
    assert len(game.turns) == 12  # the game went on after the elimination
    assert game.turns[9].comments == ("Alignments revealed: Ann Good, Bob Good",)
    assert all(not t.comments for k, t in enumerate(game.turns) if k != 9)


def test_the_lights_and_the_feed_show_the_reveal():
    """004 (Élimination et victoire): "À la fin de votre tour, si vous avez éliminé
    quelqu’un, révélez votre alignement secret (si ce n’était pas déjà fait)" """
    now = [1000.0]
    sim = SimulatedTableGame(preset("good-evil"), PLAYERS, layout_name="four-seat",
                             alignments=deal_alignments(3, SEED), clock=lambda: now[0],
                             timeout=30)
    events = []
    producer = FeedProducer(sim.session, table="t", rules_name="good-evil",
                            sinks=[events.append])
    sim.session.events.committed.listen(Stage.FEED, producer.committed)
    with sim:
        for number, text in enumerate(TURNS[:10], start=1):
            seat = sim.driver.state.to_move
            sim.driver.play_turn(_sdg_turn(text, PLAYERS[seat]), hand_over=False)
            sim.settle()
            after = sim.driver.state
            assert sim.hand_over_and_wait(after.to_move), sim.session.status.message
            assert len(sim.session.tracker.record) == number
        session = sim.session
        view = session.hint_view()
        assert view.alignments_revealed == ((0, "good"), (1, "good"))
        layout = session.layout
        white = None
        for step in range(8):  # the bars blink: find a lit moment
            frame = session.lights.render(view, now[0] + step * 0.1)
            bars = [layout.seats[s].bar for s in range(3)]
            lit = [frame[bar[0]] for bar in bars]
            if lit[0] != (0, 0, 0):
                white = lit
                break
        assert white is not None
        assert white[0] == white[1] and white[0][0] == white[0][1] == white[0][2]  # white
        assert white[2] != ALIGNMENT_COLORS["evil"]  # Cat's stays secret
        now[0] += REVEAL_SHOWN_S + 1
        assert session.hint_view().alignments_revealed == ()
    turn = [e for e in events if e.type == "turn"][-1]
    assert turn.number == 10 and turn.revealed == ((0, "good"), (1, "good"))
    assert event_from_json(turn.to_json()).revealed == turn.revealed
    snapshot = producer.snapshot()
    assert snapshot.game.revealed == ("good", "good", None)
    assert event_from_json(snapshot.to_json()).game.revealed == ("good", "good", None)
    assert "turn 10: alignments revealed: Ann Good, Bob Good" in session.notices
    from homeworlds.web.app import draw_map

    svg = draw_map(snapshot)  # the live map names the revealed cards, not Cat's
    assert "Ann (Good)" in svg and "Bob (Good)" in svg and "Cat (Evil)" not in svg
