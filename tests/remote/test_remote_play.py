"""Remote play as ``homeworlds play`` runs it: two tables built from ``[remote]``
configurations play an archive game through a real mosquitto; the guest's host is stopped
mid-game, the host's player moves meanwhile, and the guest's ``play`` started again from its
configuration and store resumes the game: both stores equal turn by turn."""

from __future__ import annotations

from homeworlds.notation import read_sdg_file
from homeworlds.remote.invitation import Invitation
from tests.remote.play_tables import PlayTable, follow, play_own, wait
from tests.remote.tables import GAME, reference_before, slots_by_content


def test_a_restarted_play_resumes_the_remote_game_with_both_stores_equal(tmp_path, broker):
    game = read_sdg_file(GAME)
    code = Invitation.new().code
    first = game.turns[0].seat
    host = PlayTable(tmp_path / "home", "home", "host", code, game.players, broker.url, first)
    guest = PlayTable(tmp_path / "away", "away", "guest", code, game.players, broker.url,
                      first)
    tables = (host, guest)
    by_seat = {0: host, 1: guest}

    def both_stored(turns):
        """The loop writes its store after the tick that committed: wait for both."""
        wait(lambda: len(host.stored()) == len(guest.stored()) == turns,
             f"both stores hold {turns} turns", tables)
        assert host.stored() == guest.stored()

    def play(start, end):
        for index in range(start, end):
            turn = game.turns[index]
            mover, follower = by_seat[turn.seat], by_seat[1 - turn.seat]
            reference = reference_before(game, index)
            play_own(mover, turn.actions, game.turns[index + 1].seat, reference,
                     slots_by_content(mover.session, reference), tables)
            follow(follower, tables)
            both_stored(index + 1)

    try:
        wait(lambda: host.game.paused is None and guest.game.paused is None,
             "the two tables meet", tables)
        play(0, 4)
        guest.stop()
        wait(lambda: host.game.paused is not None, "the host pauses", (host,))
        turn = game.turns[4]
        reference = reference_before(game, 4)
        play_own(host, turn.actions, game.turns[5].seat, reference,
                 slots_by_content(host.session, reference), (host,))
        guest.start()  # `homeworlds play` again: the store resumes the game
        wait(lambda: host.game.paused is None and guest.game.paused is None,
             "both tables resume", tables)
        follow(guest, tables)
        both_stored(5)
        play(5, 8)
        refused = list(host.game.refusals) + list(guest.game.refusals)
        assert refused == []
    finally:
        for table in tables:
            table.close()
