"""A remote game's codes and checks, without a broker: two table sessions whose messages
are handed from one to the other (and to an attacker) directly."""

from __future__ import annotations

import pytest

from homeworlds.clock import ClockSpec, GameClocks
from homeworlds.identity import ReplayWindow, sign
from homeworlds.remote.game import DUPLICATE_WINDOW, RemoteGame
from homeworlds.remote.invitation import Invitation, InvitationError
from homeworlds.remote.messages import MessageError, Offline, TurnMessage, read_payload, to_payload
from homeworlds.rules import preset
from homeworlds.session import new_session
from homeworlds.sim import make_registry
from homeworlds.store.records import turn_from_sdg
from homeworlds.table.layout import builtin_layout

PLAYERS = ("Ann", "Bob")


def test_an_invitation_code_round_trips_and_a_typo_is_refused():
    invitation = Invitation.new()
    code = invitation.code
    assert code.startswith("hw-") and len(code) == 3 + 5 * 5 + 4
    again = Invitation.from_code(code.upper().replace("-", " "))
    assert again.game_id == invitation.game_id and again.secret == invitation.secret
    assert invitation.secret.hex() not in repr(invitation)
    assert invitation.key("host").secret != invitation.key("guest").secret
    wrong = code[:-1] + ("a" if code[-1] != "a" else "b")
    with pytest.raises(InvitationError, match="mistyped"):
        Invitation.from_code(wrong)
    with pytest.raises(InvitationError, match="25 letters"):
        Invitation.from_code("hw-abc")
    with pytest.raises(InvitationError, match="'0'"):
        Invitation.from_code(code[:-2] + "0" + code[-1])
    assert Invitation.new().game_id != invitation.game_id


def test_a_message_of_another_game_or_malformed_is_refused_with_the_field_named():
    with pytest.raises(MessageError, match="not this game"):
        read_payload(to_payload(TurnMessage("0" * 16, 1, 0, "x")), "1" * 16)
    with pytest.raises(MessageError, match="number"):
        read_payload(b'{"type": "turn", "game": "' + b"1" * 16 + b'", "number": -1, '
                     b'"seat": 0, "sdg": "x"}', "1" * 16)
    with pytest.raises(MessageError, match="players"):
        read_payload(b'{"type": "hello", "game": "' + b"1" * 16 + b'", "seat": 0, '
                     b'"players": ["Ann", "\\u001b[2JBob"], "rules": "sdg", "turns": 0}',
                     "1" * 16)
    with pytest.raises(MessageError, match="not JSON"):
        read_payload(b"\xff", "1" * 16)
    hello = (b'{"type": "hello", "game": "' + b"1" * 16 + b'", "seat": 0, "players": '
             b'["Ann", "Bob"], "rules": "sdg", "turns": 4, ')
    with pytest.raises(MessageError, match="clock: .*initial_s"):
        read_payload(hello + b'"clock": {"mode": "fischer", "initial_s": -5}}', "1" * 16)
    with pytest.raises(MessageError, match="clock: not a time control"):
        read_payload(hello + b'"clock": "600+5"}', "1" * 16)
    with pytest.raises(MessageError, match="waiting: not true or false"):
        read_payload(hello + b'"waiting": 1}', "1" * 16)
    with pytest.raises(MessageError, match="clocks_ms"):
        read_payload(hello + b'"waiting": true, "clocks_ms": [1, -1]}', "1" * 16)


class Wire:
    """Two sides joined directly: what one sends, the other receives (when connected)."""

    def __init__(self, specs: dict[str, ClockSpec | None] | None = None):
        self.invitation = Invitation.new()
        self.sides = {}
        self.sent: list[tuple[str, bytes]] = []
        #: the sessions' clock (seconds): the test moves it
        self.now = 1000.0
        for role, seat in (("host", 0), ("guest", 1)):
            layout = builtin_layout("standard-2p")
            rules = preset("sdg")
            session = new_session(layout, make_registry(layout, 2), rules, PLAYERS,
                                  clock=lambda: self.now,
                                  clock_spec=(specs or {}).get(role))
            numbers = iter(range(1, 10**6, 256))
            game = RemoteGame(session, self.invitation, role, seat,
                              reserve=lambda n, numbers=numbers: next(numbers))
            game.attach()
            self.sides[role] = game
        for role, game in self.sides.items():
            other = self.sides["guest" if role == "host" else "host"]
            game.send = lambda t, d, r, other=other: (self.sent.append((t, d)),
                                                      other.received(t, d))
        for game in self.sides.values():
            game.connected(True)
        self.poll()

    def poll(self):
        for _ in range(4):
            for game in self.sides.values():
                game.poll()


def refusals(game, side):
    return [r.reason for r in game.refusals if r.side == side]


def test_the_two_sides_meet_and_a_forged_replayed_illegal_or_early_turn_is_refused_on_both():
    wire = Wire()
    host, guest = wire.sides["host"], wire.sides["guest"]
    assert host.paused is None and guest.paused is None
    # The host's first turn, as its table commits it, reaches the guest.
    turn = turn_from_sdg("Homeworld B3 Y1 G3", 0, PLAYERS)
    topic = host.topic
    message = TurnMessage(host.game_id, 1, 0, "Homeworld B3 Y1 G3")

    # Forged: signed with a key of our own making (the attacker has no invitation).
    forged = Invitation.new().key("host")
    guest.received(topic, sign(forged, topic, 999, to_payload(message)))
    # Unsigned.
    guest.received(topic, to_payload(message))
    wire.poll()
    assert any("signed with key" in r for r in refusals(guest, "here"))
    assert any("not signed" in r for r in refusals(guest, "here"))
    assert any("signed with key" in r for r in refusals(host, "there"))
    assert guest.ready_turn(1) is None

    # The host's genuine turn 1 is accepted; the same bytes again are a replay.
    host._publish_turn(1, 0, turn)
    wire.poll()
    assert guest.ready_turn(1) == turn
    genuine = wire.sent[-1][1]
    # The same bytes at once: a second delivery (QoS 1 is at least once, e.g. a message
    # held in a stalled connection arrives again after the reconnection): ignored, counted.
    guest.received(topic, genuine)
    wire.poll()
    assert guest.duplicates == 1
    assert not any("replay" in r for r in refusals(guest, "here"))
    # Later (more messages of the host accepted since), the same bytes are a replay.
    for _ in range(DUPLICATE_WINDOW):
        host._say(host._hello())
    wire.poll()
    guest.received(topic, genuine)
    wire.poll()
    assert any("replay" in r for r in refusals(guest, "here"))
    assert guest.duplicates == 1 and guest.ready_turn(1) == turn

    # Out of order (turn 3 before 2) and of the wrong seat.
    host._say(TurnMessage(host.game_id, 3, 0, "Homeworld B3 Y1 G3"))
    host._say(TurnMessage(host.game_id, 2, 1, "Homeworld B3 Y1 G3"))
    wire.poll()
    here = refusals(guest, "here")
    assert any("out of order: turn 3 arrived" in r for r in here), here
    assert any("turn 2 is for seat 1" in r for r in here), here
    assert any("out of order" in r for r in refusals(host, "there"))
    assert host.paused is not None and "refused turn" in host.paused


def test_an_illegal_turn_is_refused_with_the_rules_reason():
    wire = Wire()
    host, guest = wire.sides["host"], wire.sides["guest"]
    # A build before any homeworld: the rules refuse it.
    host._say(TurnMessage(host.game_id, 1, 0, "Build G1 Ann"))
    wire.poll()
    here = refusals(guest, "here")
    assert any(r.startswith("turn 1 is") for r in here), here
    assert refusals(host, "there") == here[-1:]
    assert guest.ready_turn(1) is None


def test_a_flood_or_an_oversized_message_is_dropped_unread_and_said_once():
    from homeworlds.remote.game import INBOX_LIMIT

    wire = Wire()
    host, guest = wire.sides["host"], wire.sides["guest"]
    guest.received(host.topic, b"HWS1 " + b"x" * (64 * 1024))
    for _ in range(INBOX_LIMIT + 50):
        guest.received(host.topic, b"junk")
    assert guest.dropped == 51
    wire.poll()
    # Each message read is refused once; what is noted and told to the other side is
    # capped (a flood must not flood the terminal or the broker).
    assert guest.refused_count == INBOX_LIMIT + 1  # the junk queued + the dropped summary
    told = refusals(host, "there")
    assert 0 < len(told) <= 20
    notes = [n for n in guest.session.notices if "refused from the other table" in n]
    assert len(notes) == len(told)
    guest.clock = lambda: 1e9  # a minute later: the next refusal says how many were not
    guest.received(host.topic, b"junk")
    wire.poll()
    assert any("more refused since, not shown" in r for r in refusals(host, "there"))


def test_a_turns_clock_reading_round_trips_and_a_bad_one_is_refused_with_the_field_named():
    game_id = Invitation.new().game_id
    timed = TurnMessage(game_id, 3, 1, "Build G1 jeep", (598_250, 601_000))
    assert read_payload(to_payload(timed), game_id) == timed
    untimed = TurnMessage(game_id, 3, 1, "Build G1 jeep")
    assert b"clocks_ms" not in to_payload(untimed)
    assert read_payload(to_payload(untimed), game_id) == untimed
    for bad in ([-1, 5], [5], [True, 5], [1.5, 5], "600000", [10**15, 5], [5] * 7):
        payload = to_payload(untimed)[:-1] + b', "clocks_ms": ' + \
            str(bad).replace("'", '"').replace("True", "true").encode() + b"}"
        with pytest.raises(MessageError, match="clocks_ms: not a list of 2 to 6 clocks"):
            read_payload(payload, game_id)


FISCHER = ClockSpec.parse("600+0.2")


def start_clocks(game, remaining_s, now, paused=frozenset()):
    """The game's clocks as they run mid-game: seat 0 to move since ``now``."""
    timekeeper = game.session.timekeeper
    timekeeper.clocks = GameClocks(FISCHER, remaining_s, to_move=0, since=now,
                                   paused=frozenset(paused))


def clock_ms(game, now):
    return tuple(game.session.clocks.remaining_ms(seat, now) for seat in (0, 1))


def test_another_time_control_is_refused_at_hello_with_the_reason_on_both():
    wire = Wire({"host": FISCHER, "guest": None})
    host, guest = wire.sides["host"], wire.sides["guest"]
    assert "the other table plays with 10:00 + 0.2 s a turn (Fischer), this table with no " \
        "clock" in refusals(guest, "here")
    assert "the other table plays with no clock, this table with 10:00 + 0.2 s a turn " \
        "(Fischer)" in refusals(host, "here")
    assert host.paused == guest.paused == "paused: waiting for the other table"


def test_after_a_cut_both_clocks_resume_from_where_the_first_to_notice_stopped_them():
    """The guest's link went silent while the host's player (seat 0) was to move. The host
    learnt it first (the broker's last will) and stopped its clocks at 590 s; the guest's
    keepalive noticed 2 s later (588 s). When the guest is back both resume from 590 s."""
    wire = Wire({"host": FISCHER, "guest": FISCHER})
    host, guest = wire.sides["host"], wire.sides["guest"]
    assert host.paused is None and guest.paused is None
    start_clocks(host, (590.0, 600.0), wire.now, {"remote"})
    start_clocks(guest, (588.0, 600.0), wire.now, {"remote"})
    host.online["guest"] = False  # the last will arrived
    guest.connected(False)
    wire.poll()
    wire.now += 30.0  # the cut lasts; both clocks stand still
    guest.connected(True)  # back: "waiting", with where its clocks stand
    wire.poll()
    assert host.paused is None and guest.paused is None
    assert clock_ms(host, wire.now) == clock_ms(guest, wire.now) == (590_000, 600_000)
    assert list(host.refusals) == [] and list(guest.refusals) == []


def test_a_side_that_never_noticed_the_cut_agrees_with_the_one_that_paused():
    """The guest's link dropped and came back before the broker noticed: the host's clock
    ran on (to 585 s), the guest's stood at 588 s. The guest's waiting hello makes the
    host answer (it saw no cut, but the guest waits for it) and both stand at 588 s."""
    wire = Wire({"host": FISCHER, "guest": FISCHER})
    host, guest = wire.sides["host"], wire.sides["guest"]
    start_clocks(host, (585.0, 600.0), wire.now)
    start_clocks(guest, (588.0, 600.0), wire.now, {"remote"})
    guest.connected(False)
    wire.poll()
    guest.connected(True)
    wire.poll()
    assert host.paused is None and guest.paused is None
    assert clock_ms(host, wire.now) == clock_ms(guest, wire.now) == (588_000, 600_000)


def test_a_late_last_will_of_a_side_that_is_back_pauses_only_until_it_answers():
    """A last will published late (of a connection the other side gave up while it is
    connected again): this side pauses and says it waits; the other answers at once."""
    wire = Wire()
    host, guest = wire.sides["host"], wire.sides["guest"]
    guest._say(Offline(guest.game_id))
    wire.poll()
    assert host.paused is None and guest.paused is None
    assert list(host.session.notices)[-1] == \
        "remote game: the other table is here: the game goes on"
    # The same will again (retained, or a second delivery) changes nothing either.
    will = next(data for _, data in wire.sent if b'"type": "offline"' in data)
    host.received(guest.topic, will)
    wire.poll()
    assert host.paused is None and list(host.refusals) == []


def test_the_will_of_the_current_connection_counts_even_signed_before_a_restart():
    """Each connection leaves a will naming it (``link``), and hellos name the connection
    they come by. A will of a connection given up is ignored; the will of the current one
    pauses this side even when it was signed before this side restarted (its replay
    window now starts above that will's sequence number)."""
    wire = Wire()
    host, guest = wire.sides["host"], wire.sides["guest"]
    link, old = "a" * 16, "b" * 16
    current_will = guest.will(link)[1]  # signed when the connection was made
    stale_will = guest.will(old)[1]
    guest.current_link = lambda: link
    guest._say(guest._hello())
    wire.poll()
    assert host.peer.link == link
    host.received(guest.topic, stale_will)  # a connection given up
    wire.poll()
    assert host.paused is None and host.duplicates == 1
    # The host restarts: its window starts above everything it accepted.
    host.windows["guest"] = ReplayWindow(host.windows["guest"].highest)
    guest.send = None  # the guest's connection is gone: nobody answers
    host.received(guest.topic, current_will)
    wire.poll()
    assert host.paused == "paused: waiting for the other table"
    assert list(host.refusals) == []


def test_three_tables_resume_from_the_same_clocks_and_stop_answering():
    """Three tables (host, guest1, guest2): guest2's link was cut; host and guest1 paused
    when they learnt it (at 590 s and 589 s on seat 0's clock), guest2 at 588 s. Back, it
    says it waits; both others answer; every table then stands at 590 s, and the hellos
    stop (an answer never waits, so two tables do not answer each other for ever)."""
    invitation = Invitation.new(sides=3)
    players = ("Ann", "Bob", "Cy")
    layout = builtin_layout("four-seat")
    now = [1000.0]
    sides = {}
    for role, seat in (("host", 0), ("guest1", 1), ("guest2", 2)):
        session = new_session(layout, make_registry(layout, 3), preset("last-standing"), players,
                              clock=lambda: now[0], clock_spec=FISCHER)
        numbers = iter(range(1, 10**6, 256))
        game = RemoteGame(session, invitation, role, seat,
                          reserve=lambda n, numbers=numbers: next(numbers))
        game.attach()
        sides[role] = game
    sent = []
    for role, game in sides.items():
        others = [g for r, g in sides.items() if r != role]
        game.send = lambda t, d, r, others=others: (sent.append(t), [o.received(t, d)
                                                                      for o in others])
    for game in sides.values():
        game.connected(True)

    def poll():
        for _ in range(6):
            for game in sides.values():
                game.poll()

    poll()
    assert all(game.paused is None for game in sides.values())
    host, guest1, guest2 = sides["host"], sides["guest1"], sides["guest2"]
    for game, left in ((host, 590.0), (guest1, 589.0), (guest2, 588.0)):
        start_clocks(game, (left, 600.0, 600.0), now[0], {"remote"})
    host.online["guest2"] = guest1.online["guest2"] = False
    guest2.connected(False)
    poll()
    now[0] += 20.0
    guest2.connected(True)
    poll()
    assert all(game.paused is None for game in sides.values())
    readings = {role: tuple(game.session.clocks.remaining_ms(s, now[0]) for s in range(3))
                for role, game in sides.items()}
    assert set(readings.values()) == {(590_000, 600_000, 600_000)}, readings
    count = len(sent)
    poll()
    assert len(sent) == count  # nothing more to say
