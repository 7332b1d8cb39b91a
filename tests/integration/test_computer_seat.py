"""A person plays the computer at the simulated table (pty, simulated MCU): the person
follows the LEDs' guidance for the computer's turns, makes deliberate mistakes that are
shown as corrections, and asks for hints."""

from __future__ import annotations

from functools import partial

from homeworlds.ai.players import GreedyPlayer
from homeworlds.rules import Piece, canonical_key, preset
from homeworlds.runtime.table_replay import SimulatedTableGame
from homeworlds.session import ComputerSeat
from tests.integration.seat_helpers import (
    do_step,
    follow,
    held_uid,
    in_step,
    resync_driver,
    uid_on,
    wait_for,
    zone_of,
)

PLAYERS = ("Ann", "Hal")


def _person_plays(sim, player):
    state = sim.session.tracker.state
    turn = player.choose_turn(state)
    committed = len(sim.session.tracker.record)
    sim.driver.play_turn(turn, hand_over=False)
    sim.settle()
    following = sim.driver.state.to_move if not sim.driver.state.is_over else 1
    assert sim.hand_over_and_wait(following), sim.session.status
    assert len(sim.session.tracker.record) == committed + 1


def test_a_person_plays_the_computer_following_the_lights():
    sim = SimulatedTableGame(preset("looney"), PLAYERS, miss_rate=0.03, seed=5,
                             computer_seats={1: ComputerSeat(level=1, seed=7)},
                             time_limits={1: 2.0})
    person = GreedyPlayer(seed=3, names=PLAYERS)
    with sim:
        for _ in range(4):
            _person_plays(sim, person)
            before = sim.session.tracker.state.copy()
            words = follow(sim)
            assert words and words[-1] == "Hand the turn token to Ann"
            seat, turn = sim.session.tracker.record[-1]
            assert seat == 1
            # The record holds the computer's own choice, and the table shows it.
            chosen = before.copy()
            chosen.apply_turn(turn)
            assert canonical_key(chosen) == canonical_key(sim.session.tracker.state)
            resync_driver(sim)
            assert sim.driver.differences() == []
            if sim.session.tracker.state.is_over:
                break


def _settled_step(sim):
    sim.settle()
    wait_for(sim, lambda: sim.session.guidance_shown() is not None and in_step(sim),
             "guidance")
    return sim.session.guidance_shown()


def _blinks_red(sim, slot):
    settings = sim.session.lights.renderer.settings
    frame = sim.session.render(0.0)  # the first half of the blink period: on
    red = tuple(round(c * settings.bright) for c in settings.mistake_color)
    return all(frame[i] == red for i in sim.layout.slots[slot].ring)


def _mischief(sim, mistakes_left, ann_home, seen, step):
    """Make the next planned mistake instead of the step (then correct it)."""
    current = step.detail["current"]
    if mistakes_left and step.kind != "token":
        kind = mistakes_left.pop()
        if kind == "wrong-place" and current["target"]["kind"] == "ships":
            # The piece goes to the other player's side of the right slot.
            piece = Piece.from_text(current["piece"])
            wrong = dict(current["target"], seat=0)
            if current["source"]["kind"] == "bank":
                uid = sim.table.take_from_bank(piece)
            elif current["source"]["kind"] == "hand":
                uid = held_uid(sim, piece)
            else:
                uid = uid_on(sim, zone_of(sim, current["source"]), piece)
                sim.table.lift(uid)
            sim.table.place(uid, zone_of(sim, wrong))
            shown = _settled_step(sim)
            assert shown.text.startswith("wrong place"), shown.text
            assert shown.detail["mistakes"][0]["kind"] == "wrong-place"
            assert _blinks_red(sim, wrong["slot"])
            assert shown.put_slot == current["target"]["slot"]
            seen["wrong-place"] += 1
            do_step(sim, shown)  # the correction
            sim.settle()
            return
        if kind == "unrelated-lift":
            # Ann's own ship at her home: no step of the computer's moves it.
            zone = sim.layout.ship_zone(ann_home, 0)
            uid = sim.table.tags_on(zone)[0]
            sim.table.lift(uid)
            shown = _settled_step(sim)
            assert "is not part of this turn: put it back" in shown.text
            assert shown.detail["mistakes"][0]["kind"] == "unrelated-lift"
            assert _blinks_red(sim, ann_home)
            seen["unrelated-lift"] += 1
            do_step(sim, shown)  # put it back
            sim.settle()
            return
        if kind == "early-handover":
            committed = len(sim.session.tracker.record)
            sim.table.move_token(0)
            sim.settle()
            wait_for(sim, lambda: sim.session.status.phase == "handover-refused",
                     "the early hand-over refused")
            assert len(sim.session.tracker.record) == committed
            assert "follow the lights" in sim.session.status.message \
                or "no legal turn" in sim.session.status.message
            sim.table.move_token(1)
            seen["early-handover"] += 1
            sim.settle()
            return
    do_step(sim, step)
    sim.settle()



def test_wrong_steps_are_shown_as_corrections_and_then_fixed():

    sim = SimulatedTableGame(preset("looney"), PLAYERS, miss_rate=0.03, seed=9,
                             computer_seats={1: ComputerSeat(level=1, seed=2)},
                             time_limits={1: 2.0})
    person = GreedyPlayer(seed=4, names=PLAYERS)
    seen = {"wrong-place": 0, "unrelated-lift": 0, "early-handover": 0}
    with sim:
        ann_home = None
        for turn_number in range(3):
            _person_plays(sim, person)
            if ann_home is None:
                ann_home = sim.driver.slot("Ann")
            mistakes_left = ["early-handover", "unrelated-lift", "wrong-place"] \
                if turn_number > 0 else ["wrong-place"]

            before = sim.session.tracker.state.copy()
            follow(sim, before_each=partial(_mischief, sim, mistakes_left, ann_home, seen))
            seat, turn = sim.session.tracker.record[-1]
            chosen = before.copy()
            chosen.apply_turn(turn)
            assert seat == 1 and canonical_key(chosen) == canonical_key(sim.session.tracker.state)
            resync_driver(sim)
            assert sim.driver.differences() == []
    assert seen["unrelated-lift"] >= 1 and seen["early-handover"] >= 1, seen
    assert seen["wrong-place"] >= 1, seen


def _opening(sim, person_turns):
    """Both homeworlds and a first build each, played by the driver (no computer seat)."""
    from homeworlds.notation.sdg import parse_sdg_action
    for k, text in enumerate(person_turns):
        turn = tuple(parse_sdg_action(a.strip(), player=PLAYERS[k % 2]) for a in text.split(";"))
        sim.driver.play_turn(turn, hand_over=False)
        sim.settle()
        assert sim.hand_over_and_wait(sim.driver.state.to_move), sim.session.status


OPENING = ["Homeworld Y1 B2 G3", "Homeworld R1 Y2 G3", "Build G1 Ann", "Build G1 Hal"]


def _shade_of(color, base):
    """``color`` is ``base`` at some brightness (not black)."""
    level = max(color) / max(base)
    return max(color) > 0 and all(abs(c - b * level) <= 2 for c, b in zip(color, base,
                                                                          strict=True))


def test_a_long_press_shows_a_suggestion_that_commits_nothing():
    from tests.integration.seat_helpers import check_lights, do_step, ring, wait_for_step

    sim = SimulatedTableGame(preset("looney"), PLAYERS, miss_rate=0.03, seed=11,
                             long_press_s=1.0, suggestion_level=1)
    with sim:
        _opening(sim, OPENING)
        session = sim.session
        committed = len(session.tracker.record)
        button = sim.layout.seats[0].button
        sim.table.long_press(button)
        wait_for(sim, lambda: (g := session.guidance_shown()) is not None
                 and g.suggestion, "the hint")
        step = wait_for_step(sim, suggestion=True)
        assert step.seat == 0 and step.suggestion
        check_lights(sim, step)
        # Marked as a hint: the rings of the step show the suggestion colour.
        hint = session.lights.renderer.settings.suggestion_color
        slots = [x for x in (step.lift_slot, step.put_slot) if x is not None]
        colors = {c for t in range(12) for x in slots for c in ring(sim, x, session.render(t / 10))}
        assert any(_shade_of(c, hint) for c in colors), colors
        assert session.hint_view().guidance.to_json()["suggestion"] is True
        # Nothing is committed while it shows, however long it shows.
        for _ in range(20):
            for event in sim.link.poll(0.01):
                session.handle(event)
            session.tick()
        assert len(session.tracker.record) == committed
        # A second long press cancels it.
        sim.table.long_press(button)
        wait_for(sim, lambda: session.guidance_shown() is None, "the hint cancelled")
        assert len(session.tracker.record) == committed
        # Asked again, the learner follows it; the hint ends, and their own hand-over
        # commits the turn the computer suggested.
        sim.table.long_press(button)
        step = wait_for_step(sim, suggestion=True)
        suggested = session.computer.hint.turn
        while step is not None and step.suggestion:
            do_step(sim, step)
            sim.settle()
            step = session.guidance_shown()
        assert len(session.tracker.record) == committed
        assert sim.hand_over_and_wait(1), session.status
        expected = sim.driver.state.copy()
        expected.apply_turn(suggested)
        assert canonical_key(session.tracker.state) == canonical_key(expected)


def test_tournament_mode_refuses_hints():
    from homeworlds.hints import HintSettings
    from homeworlds.rules import Piece

    sim = SimulatedTableGame(preset("looney"), PLAYERS, miss_rate=0.03, seed=12,
                             long_press_s=1.0, hint_settings=HintSettings(suggestions=False))
    with sim:
        _opening(sim, OPENING)
        session = sim.session
        committed = len(session.tracker.record)
        home = sim.driver.slot("Ann")
        sim.table.place(sim.table.take_from_bank(Piece.from_text("g1")),
                        sim.layout.ship_zone(home, 0))
        sim.settle()
        sim.table.long_press(sim.layout.seats[0].button)
        wait_for(sim, lambda: session.computer.suggestions_refused == 1, "the refusal")
        assert "tournament mode" in " ".join(session.notices)
        assert session.guidance_shown() is None and session.computer.thinking is None
        # Without hints a press is acted on at once: the press of the long press hands
        # Ann's build over, as any press of her button does.
        wait_for(sim, lambda: len(session.tracker.record) == committed + 1, "the commit")
        assert str(session.tracker.record[-1][1][0]) == "build g1 at Ann"


def test_with_hints_on_a_short_press_hands_over_once_it_cannot_be_a_long_press():
    from homeworlds.rules import Piece

    sim = SimulatedTableGame(preset("looney"), PLAYERS, miss_rate=0.03, seed=13,
                             long_press_s=0.5)
    with sim:
        _opening(sim, OPENING)
        session = sim.session
        committed = len(session.tracker.record)
        home = sim.driver.slot("Ann")
        sim.table.place(sim.table.take_from_bank(Piece.from_text("g1")),
                        sim.layout.ship_zone(home, 0))
        sim.settle()
        sim.table.press(sim.layout.seats[0].button)
        wait_for(sim, lambda: len(session.tracker.record) > committed, "the button's commit")
        assert str(session.tracker.record[-1][1][0]) == "build g1 at Ann"


def test_the_computer_finishes_an_archive_game_on_the_table():
    """From the bundled game two turns before its end: the person plays the record's
    turn, the computer its own: it must find the win the record's winner found (a red
    sacrifice and a capture at the opponent's home) and guide it onto the table."""
    from importlib import resources

    from homeworlds.notation.sdg import read_sdg
    from homeworlds.replay import rules_for_game
    from homeworlds.rules import GameState
    from homeworlds.sim import TableDriver

    game = read_sdg(resources.files("homeworlds.data").joinpath("demo-game.raw").read_text())
    rules = rules_for_game(game, None)
    keep = len(game.turns) - 2
    state = GameState(rules, 2, first_to_move=game.turns[0].seat)
    for turn in game.turns[:keep]:
        state.apply_turn(turn.actions)
    sim = SimulatedTableGame(rules, game.players, first_seat=game.turns[0].seat,
                             miss_rate=0.03, seed=21,
                             computer_seats={1: ComputerSeat(level=1, seed=1)},
                             time_limits={1: 3.0})
    with sim:
        session = sim.session
        session.tracker.resume([(t.seat, t.actions) for t in game.turns[:keep]])
        sim.driver = TableDriver(sim.table, state)
        sim.driver.arrange()  # the players lay the recorded position out
        sim.settle()
        wait_for(sim, lambda: not session.tracker._resumed, "the host to find every system")
        for turn in game.turns[keep:]:
            if session.tracker.state.is_over:
                break
            if turn.seat == 0:
                sim.driver = TableDriver(sim.table, session.tracker.state,
                                         session.tracker.slot_of_system(session.observation))
                sim.driver.play_turn(turn.actions, hand_over=False)
                sim.settle()
                assert sim.hand_over_and_wait(1), session.status
            else:
                follow(sim)
        state = session.tracker.state
        assert state.is_over and tuple(state.result.winners) == (1,), state.describe()
        assert [seat for seat, _ in session.tracker.record[keep:]] == [0, 1]


def test_another_legal_turn_at_the_computers_seat_is_refused_and_guided_back():
    from homeworlds.ai.players import RandomPlayer
    from homeworlds.sim import TableDriver
    from tests.integration.seat_helpers import wait_for_step

    sim = SimulatedTableGame(preset("looney"), PLAYERS, miss_rate=0.03, seed=17,
                             computer_seats={1: ComputerSeat(level=1, seed=3)},
                             time_limits={1: 2.0})
    person = GreedyPlayer(seed=5, names=PLAYERS)
    with sim:
        _person_plays(sim, person)
        follow(sim)  # the computer's homeworld
        resync_driver(sim)
        _person_plays(sim, person)
        session = sim.session
        wait_for_step(sim)
        state = session.tracker.state
        chosen = state.copy()
        chosen.apply_turn(session.computer.planned_turn.turn)
        other = None
        for seed in range(50):
            turn = RandomPlayer(seed=seed, names=PLAYERS).choose_turn(state)
            after = state.copy()
            after.apply_turn(turn)
            if canonical_key(after) != canonical_key(chosen):
                other = turn
                break
        assert other is not None
        committed = len(session.tracker.record)
        driver = TableDriver(sim.table, state, session.tracker.slot_of_system(session.observation))
        driver.play_turn(other, hand_over=False)
        sim.settle()
        sim.table.move_token(0)
        wait_for(sim, lambda: session.status.phase == "handover-refused", "the refusal")
        assert "another turn than Hal chose" in session.status.message
        assert len(session.tracker.record) == committed
        # The lights lead the table back to the computer's turn, which then commits.
        words = follow(sim)
        assert words and all(w != "Hand the turn token to Ann" for w in words)
        assert len(session.tracker.record) == committed + 1
        assert canonical_key(session.tracker.state) == canonical_key(chosen)


class _Gated:
    """The level-1 computer, answering only once ``gate`` is set (to time its answer)."""

    def __init__(self, gate, level, seed, rules, names):
        from homeworlds.ai.players import ComputerPlayer
        self.gate = gate
        self.inner = ComputerPlayer(level, seed=seed, rules=rules, names=names)

    def choose_turn(self, state):
        assert self.gate.wait(20)
        return self.inner.choose_turn(state)


def test_the_computer_answering_while_a_star_is_lifted_is_shown_once_it_is_back():
    import threading

    gate = threading.Event()
    sim = SimulatedTableGame(
        preset("looney"), PLAYERS, miss_rate=0.0, seed=23,
        computer_seats={1: ComputerSeat(level=1, seed=7)},
        player_factory=lambda level, seed, rules, names: _Gated(gate, level, seed, rules,
                                                                names))
    person = GreedyPlayer(seed=3, names=PLAYERS)
    with sim:
        _person_plays(sim, person)
        gate.set()
        follow(sim)  # the computer's homeworld
        resync_driver(sim)
        gate.clear()
        _person_plays(sim, person)
        session = sim.session
        wait_for(sim, lambda: session.guidance_shown() is not None
                 and session.guidance_shown().phase == "thinking", "the thinking")
        # Someone lifts Ann's home stars; the computer answers meanwhile.
        home = session.tracker.slot_of_system(session.observation)["Ann"]
        stars = sim.table.tags_on(sim.layout.slots[home].star_zone)
        for star in stars:
            sim.table.lift(star)
        sim.settle()
        gate.set()
        wait_for(sim, lambda: any("cannot be shown yet" in n for n in session.notices),
                 "the notice")
        assert session.guidance_shown() is None
        for star in stars:
            sim.table.place(star, sim.layout.slots[home].star_zone)
        sim.settle()
        before = session.tracker.state.copy()
        follow(sim)
        seat, turn = session.tracker.record[-1]
        chosen = before.copy()
        chosen.apply_turn(turn)
        assert seat == 1 and canonical_key(chosen) == canonical_key(session.tracker.state)


def test_a_computer_that_fails_is_reported_and_the_game_is_kept():
    class Broken:
        def __init__(self, *args):
            self.calls = 0

        def choose_turn(self, state):
            raise RuntimeError("the search ran out of memory")

    made = []

    def factory(*args):
        made.append(Broken())
        return made[-1]

    sim = SimulatedTableGame(preset("looney"), PLAYERS, miss_rate=0.0, seed=29,
                             computer_seats={1: ComputerSeat(level=1)}, player_factory=factory)
    with sim:
        _person_plays(sim, GreedyPlayer(seed=3, names=PLAYERS))
        session = sim.session
        wait_for(sim, lambda: any("could not choose a turn: RuntimeError: the search ran out "
                                  "of memory" in n for n in session.notices), "the report")
        for _ in range(30):
            for event in sim.link.poll(0.01):
                session.handle(event)
            session.tick()
        assert len(made) == 1  # reported once, not retried in a loop
        assert len(session.tracker.record) == 1 and session.guidance_shown() is None


def test_the_table_is_guided_back_to_an_earlier_position():
    """The undo entry point: after a turn, the players are guided back to the position
    before it (the tracker's own undo is the caller's: here the position is compared on
    the table)."""
    from homeworlds.sim import compare_table
    from tests.integration.seat_helpers import do_step

    sim = SimulatedTableGame(preset("looney"), PLAYERS, miss_rate=0.03, seed=31)
    with sim:
        _opening(sim, OPENING)
        session = sim.session
        before = session.tracker.state.copy()
        slots = session.tracker.slot_of_system(session.observation)
        from homeworlds.notation.sdg import parse_sdg_action
        sim.driver.play_turn((parse_sdg_action("Discover G1 Ann B3 Far", player="Ann"),),
                             hand_over=False)
        sim.settle()
        assert sim.hand_over_and_wait(1)
        guidance = session.guide_back(before)
        assert guidance.current is not None
        for _ in range(20):
            wait_for(sim, lambda: in_step(sim), "the table seen")
            shown = session.guidance_shown()
            if session.computer.restore_guidance is None:
                break
            assert shown is not None and shown.phase == "guiding"
            do_step(sim, shown)
            sim.settle()
        assert session.computer.restore_guidance is None
        assert "the table shows the earlier position again" in session.notices
        assert compare_table(sim.table, before, slots) == []
