"""Issue 30 item 2: a seat played from a phone (``remote.phone.PhoneSeat``): the one-time
claim, the turn built action by action with the table's checks and the rulebook's sentence,
the turn handed to the seat's player."""

from __future__ import annotations

import pytest

from homeworlds.remote.phone import (
    MAX_WRONG_CODES,
    WRONG_CODE_WINDOW_S,
    ClaimRefused,
    PhoneMistake,
    PhoneSeat,
)
from tests.remote.phone_table import PhoneTable


@pytest.fixture
def first_seat(tmp_path):
    """Seat 0 (jeep, who moves first) played from a phone; the table is not running."""
    table = PhoneTable(tmp_path, 0, start=False, code="K7MQ-2XPD")
    yield table
    table.close()


def test_the_seat_is_claimed_once_with_its_code(first_seat):
    phone = first_seat.phone
    with pytest.raises(ClaimRefused, match="wrong code") as wrong:
        phone.claim("K7MQ2XPE")
    assert wrong.value.status == 403 and not phone.claimed
    token = phone.claim(" k7mq-2xpd ")  # as typed: case, spaces and dashes do not matter
    assert phone.holds(token)
    assert not phone.holds(None) and not phone.holds(token[:-1] + "x") and not phone.holds("")
    with pytest.raises(ClaimRefused, match="already played from another phone") as second:
        phone.claim("K7MQ2XPD")
    assert second.value.status == 409
    assert phone.holds(token)


def test_claiming_waits_after_too_many_wrong_codes(tmp_path):
    now = [100.0]
    table = PhoneTable(tmp_path, 0, start=False, code="K7MQ2XPD")
    try:
        phone = PhoneSeat(table.session, 0, code="K7MQ2XPD", clock=lambda: now[0])
        for n in range(MAX_WRONG_CODES):
            with pytest.raises(ClaimRefused, match="wrong code"):
                phone.claim(f"WRONG{n:03d}")
        with pytest.raises(ClaimRefused, match="too many wrong codes") as locked:
            phone.claim("K7MQ2XPD")
        assert locked.value.status == 429 and not phone.claimed
        now[0] += WRONG_CODE_WINDOW_S + 1  # a minute later the right code claims
        assert phone.holds(phone.claim("K7MQ2XPD"))
        with pytest.raises(ClaimRefused, match="already played"):
            phone.new_code()
    finally:
        table.close()


def test_a_new_code_replaces_the_old_one(first_seat):
    phone = first_seat.phone
    fresh = phone.new_code()
    with pytest.raises(ClaimRefused, match="wrong code"):
        phone.claim("K7MQ2XPD")  # the old code no longer claims
    assert phone.holds(phone.claim(fresh))


def test_a_new_claim_code_is_eight_unambiguous_letters(tmp_path):
    table = PhoneTable(tmp_path, 0, start=False)
    try:
        code = table.phone.code
        assert len(code) == 8 and not set(code) & set("01OIL")
    finally:
        table.close()


def test_the_turn_is_built_action_by_action_with_the_tables_checks(first_seat):
    phone = first_seat.phone
    with pytest.raises(PhoneMistake, match="'Fly G1 to the moon' is not an action"):
        phone.add_action("Fly G1 to the moon")
    with pytest.raises(PhoneMistake, match="at most 80 printable characters"):
        phone.add_action("Build G1 " + "x" * 100)
    with pytest.raises(PhoneMistake, match="at most 80 printable characters"):
        phone.add_action("Build G1 jeep\x1b[2J")
    phone.add_action("Homeworld B2 Y3 G3")
    assert phone.draft_text() == ["Homeworld B2 Y3 G3"]
    with pytest.raises(PhoneMistake) as refused:
        phone.add_action("Build G1 jeep")
    assert "this action is refused" in str(refused.value)
    assert refused.value.citation is not None, "the table's mistakes cite the rulebook"
    phone.undo()
    assert phone.draft() == ()
    with pytest.raises(PhoneMistake, match="no action yet"):
        phone.send(1)
    phone.add_action("homeworld b2 y3 g3")


def test_a_turn_sent_is_the_seats_players_choice(first_seat):
    phone = first_seat.phone
    phone.add_action("Homeworld B2 Y3 G3")
    with pytest.raises(PhoneMistake, match="the page shows turn 2, the table is at turn 1"):
        phone.send(2)
    assert phone.wait_for_turn(1, 0.01) is None
    turn = phone.send(1)
    assert phone.wait_for_turn(1, 0.01) == turn
    assert phone.view().sent
    assert "your turn was sent" in phone.my_turn(phone.view())
    with pytest.raises(PhoneMistake, match="not now: your turn was sent"):
        phone.add_action("Build G1 jeep")
    player = phone.player_factory(1, None, first_seat.rules, first_seat.game.players)
    assert player.choose_turn(first_seat.session.tracker.state) == turn


def test_the_phone_waits_while_the_table_plays(tmp_path):
    table = PhoneTable(tmp_path, 1, start=False)
    try:
        phone = table.phone
        assert phone.my_turn(phone.view()) == "waiting for jeep's turn at the table"
        with pytest.raises(PhoneMistake, match="not now: waiting for jeep's turn"):
            phone.add_action("Homeworld Y1 G1 R3")
        assert phone.offered(phone.view()) == []
    finally:
        table.close()


def test_a_turn_sent_before_an_undo_is_never_taken_for_the_new_position(tmp_path):
    """The admin undoes the table's last turn while the phone's turn waits to be laid out:
    the phone's turn was for the position before the undo and is dropped."""
    from types import SimpleNamespace

    table = PhoneTable(tmp_path, 1, start=False)
    try:
        game = table.game
        tracker = SimpleNamespace(players=game.players, rules=table.rules,
                                  state=table.reference_before(3),
                                  record=[(t.seat, t.actions) for t in game.turns[:3]])
        phone = PhoneSeat(SimpleNamespace(tracker=tracker, events=table.session.events), 1)
        phone.refresh()
        assert phone.view().number == 4 and phone.my_turn(phone.view()) is None
        phone.add_action("Build R1 Danner")
        phone.send(4)
        assert phone.wait_for_turn(4, 0.01) is not None
        # Undo of turn 3: the table is back at turn 3 (jeep's), then jeep plays another.
        tracker.state, tracker.record = table.reference_before(2), tracker.record[:2]
        phone.refresh()
        assert phone.wait_for_turn(4, 0.01) is None
        assert phone.my_turn(phone.view()) == "waiting for jeep's turn at the table"
        tracker.state = table.reference_before(3)
        tracker.record = [(t.seat, t.actions) for t in game.turns[:3]]
        phone.refresh()
        assert phone.wait_for_turn(4, 0.01) is None and not phone.view().sent
    finally:
        table.close()


def test_the_claim_is_kept_in_the_store_across_a_restart(first_seat):
    """Only hashes are kept; a restarted table (a new PhoneSeat on the same store) knows
    the phone that claimed the seat, and no second phone can claim it, old code or new."""
    token = first_seat.phone.claim("K7MQ2XPD")
    again = PhoneSeat(first_seat.session, 0, claims=first_seat.claims)
    assert again.claimed and again.holds(token)
    assert again.code != "K7MQ2XPD"
    for code in ("K7MQ2XPD", again.code):
        with pytest.raises(ClaimRefused, match="already played from another phone"):
            again.claim(code)
    kept = first_seat.claims.load(0)
    assert kept is not None and token.encode() not in kept.token_hash
    assert len(kept.code_hash) == len(kept.token_hash) == 32
    import sqlite3

    dump = "\n".join(sqlite3.connect(first_seat.recorder.path).iterdump())
    assert token not in dump and again.code not in dump, "the store holds a secret"


def test_an_unclaimed_seat_gets_a_new_code_after_a_restart(first_seat):
    again = PhoneSeat(first_seat.session, 0, claims=first_seat.claims)
    assert not again.claimed
    with pytest.raises(ClaimRefused, match="wrong code"):
        again.claim("K7MQ2XPD")  # the code shown before the restart is gone with it
    assert again.holds(again.claim(again.code))


def test_a_claim_the_store_cannot_keep_is_refused(first_seat):
    from homeworlds.store import StoreUnavailable

    def broken(seat, claim):
        raise StoreUnavailable(str(first_seat.recorder.path), "disk I/O error")

    first_seat.claims.save = broken
    with pytest.raises(ClaimRefused, match="could not keep the claim") as refused:
        first_seat.phone.claim("K7MQ2XPD")
    assert refused.value.status == 503 and not first_seat.phone.claimed


def test_the_phone_resigns_and_the_store_records_it(tmp_path):
    table = PhoneTable(tmp_path, 1)
    try:
        table.play_table_turn(0)
        phone = table.phone
        phone.resign()
        assert phone.my_turn(phone.view()) == "you resigned: the table ends the game"
        table.pump_until(lambda: table.session.tracker.state.result is not None,
                         "the table ends the game")
        assert any("Danner resigns from the phone" in n for n in table.session.notices)
        result = table.stored_result()
        assert (result.kind, result.winners, result.by_seat) == ("resigned", (0,), 1)
        table.pump_until(lambda: phone.view().ended_by == "resigned", "the phone's copy")
        with pytest.raises(PhoneMistake, match="the game is over"):
            phone.offer_draw()
    finally:
        table.close()


def test_a_draw_offer_is_declined_lapses_or_is_accepted(tmp_path):
    table = PhoneTable(tmp_path, 1)
    try:
        phone, session = table.phone, table.session
        table.play_table_turn(0)
        phone.offer_draw()
        with pytest.raises(PhoneMistake, match="waits for the table's answer"):
            phone.offer_draw()
        assert phone.view().draw == "offered"
        table.pump_until(lambda: any(
            "Danner offers a draw from the phone: type `draw` to accept or `decline`" in n
            for n in session.notices), "the table tells its person")
        assert phone.admin_info()["draw_offered"]
        assert phone.decline_draw() == "Danner's draw offer declined: the game goes on"
        with pytest.raises(ValueError, match="has not offered a draw"):
            phone.decline_draw()
        assert phone.view().draw == "declined" and session.tracker.state.result is None
        # Offered again, then the table's player plays on: the offer lapses.
        phone.offer_draw()
        phone.add_action("Homeworld Y1 G1 R3")
        phone.send(2)
        table.follow_phone_turn()
        table.play_table_turn(2)
        table.pump_until(lambda: phone.view().draw == "declined", "the offer lapses")
        assert any("Danner's draw offer lapsed: jeep played on" in n for n in session.notices)
        # The phone plays on too: the answer is no longer shown.
        phone.add_action("Build R1 Danner")
        phone.send(4)
        table.follow_phone_turn()
        table.pump_until(lambda: phone.view().draw is None, "the answer is dropped")
        # Offered once more and accepted at the table (its `draw`, as the terminal's).
        phone.offer_draw()
        from homeworlds.runtime.terminal import run_command

        run_command("draw", session, table.recorder, table.game.players)
        table.pump_until(lambda: phone.view().ended_by == "agreed-draw", "the phone's copy")
        assert phone.view().draw is None
        result = table.stored_result()
        assert (result.kind, result.after_turn) == ("agreed-draw", 4)
    finally:
        table.close()


def test_the_phone_reads_the_tables_clocks(tmp_path):
    from homeworlds.clock import ClockSpec

    table = PhoneTable(tmp_path, 1, clock_spec=ClockSpec.parse("300+2"))
    try:
        table.play_table_turn(0)
        table.phone.add_action("Homeworld Y1 G1 R3")
        table.phone.send(2)
        table.follow_phone_turn()
        table.play_table_turn(2)  # the clocks start after the (untimed) setup
        table.pump_until(lambda: table.phone.view().clocks is not None
                         and table.phone.view().clocks["seats"][1]["running"],
                         "the phone's seat's clock runs")
        clocks = table.phone.view().clocks
        reading = table.session.clocks_feed()
        assert [s["running"] for s in clocks["seats"]] == [False, True]
        assert clocks["seats"][0]["remaining_ms"] == reading["seats"][0]["remaining_ms"]
        assert abs(clocks["seats"][1]["remaining_ms"] - reading["seats"][1]["remaining_ms"]) \
            < 2000
    finally:
        table.close()


def test_the_table_frees_the_seat_for_another_phone(first_seat):
    """The phone was lost (or another visitor takes over): the table's person frees the
    seat; the old phone no longer plays it, the new code claims it, also after a restart."""
    phone = first_seat.phone
    token = phone.claim("K7MQ2XPD")
    phone.base_url = "http://192.168.1.20:8090/"
    said = phone.release()
    assert not phone.holds(token) and not phone.claimed
    assert said == (f"the phone seat jeep is free: a phone claims it with the new code "
                    f"{phone.code} (http://192.168.1.20:8090/phone?code={phone.code})")
    again = PhoneSeat(first_seat.session, 0, claims=first_seat.claims)
    assert not again.claimed and not again.holds(token)
    assert again.holds(again.claim(again.code))


def test_the_terminal_declines_a_draw_and_frees_the_seat(first_seat, capsys):
    """``decline-draw``, ``decline`` (whichever waits: the phone's draw offer or the hub's
    invitation) and ``release-phone`` typed on the table's terminal, as ``play`` runs them."""
    import queue
    from types import SimpleNamespace

    from homeworlds.runtime.table import _Upkeep

    phone = first_seat.phone
    token = phone.claim("K7MQ2XPD")
    lines: queue.Queue = queue.Queue()
    config = SimpleNamespace(players=first_seat.game.players)
    upkeep = _Upkeep(first_seat.session, first_seat.recorder, None, lines, config, None,
                     phone)

    def typed(*texts):
        for text in texts:
            lines.put(text + "\n")
        upkeep.store()
        return capsys.readouterr().out.splitlines()

    phone.offer_draw()
    assert typed("decline-draw", "decline-draw", "decline") == [
        "jeep's draw offer declined: the game goes on",
        "cannot decline: jeep has not offered a draw",
        "nothing to decline: no draw offer from the phone and no invitation from the hub "
        "is waiting"]
    phone.offer_draw()
    assert typed("decline") == ["jeep's draw offer declined: the game goes on"]
    # At an event the hub's invitation may wait too (its desk answers `decline`).
    desk = SimpleNamespace(pending="game 7", command=lambda line: f"declined game 7 ({line})")
    upkeep.desk = desk
    assert typed("decline") == ["declined game 7 (decline)"]
    phone.offer_draw()
    assert typed("decline") == ["both a draw offer from the phone and an invitation from the "
                                "hub wait: type decline-draw or decline-invitation"]
    assert typed("decline-invitation", "decline-draw") == [
        "declined game 7 (decline)", "jeep's draw offer declined: the game goes on"]
    out = typed("release-phone")
    assert out[0].startswith("the phone seat jeep is free: a phone claims it with the new code")
    assert not phone.holds(token)


def test_a_resignation_the_table_refuses_is_asked_once(first_seat):
    """The table cannot end the game (its end_game says why): noted once, and the phone's
    page is its play page again, not a resignation waiting forever."""
    calls = []
    phone = first_seat.phone
    phone.end_game = lambda kind, seat: calls.append((kind, seat)) or "cannot resign: no"
    phone.resign()
    for _ in range(5):
        phone.refresh()
    assert calls == [("resigned", 0)]
    assert list(first_seat.session.notices)[-2:] == ["jeep resigns from the phone",
                                                     "cannot resign: no"]
    assert not phone.view().resigning and phone.my_turn(phone.view()) is None
