"""Issue 30, item 4: two real ``homeworlds play`` processes play archive games against each
other through a real mosquitto while things break: one ``play`` killed with SIGKILL and
started again from its configuration and store, the broker killed and started again, and
the network between one table and the broker blackholed (nothing closed: only the MQTT
keepalive notices) and restored. At the end both stores hold the game turn by turn, equal
to the transcript. ``make test`` plays a slice of one game with every fault; ``make corpus``
two whole games."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from homeworlds.notation import read_sdg_file
from homeworlds.remote.invitation import Invitation
from homeworlds.replay import rules_for_game
from homeworlds.rules import GameState
from homeworlds.rules.inference import board_key
from homeworlds.store.records import turn_from_sdg, turn_to_sdg
from tests.event.proxy import CuttableLink
from tests.remote.play_processes import PlayProcess, follow, play_own, wait
from tests.remote.tables import GAMES, reference_before


class Match:
    """Two tables of one remote game; the guest's broker link goes through a relay."""

    def __init__(self, directory: Path, broker, game, keepalive_s: int = 2):
        clock = '[clock]\nmode = "fischer"\ninitial_s = 600\nincrement_s = 2\n'
        self.game, self.broker = game, broker
        code = Invitation.new().code
        first = game.turns[0].seat
        self.link = CuttableLink(broker.port)
        self.host = PlayProcess(directory / "home", "home", "host", code, game.players,
                                broker.url, first, keepalive_s=keepalive_s, clock=clock)
        self.guest = PlayProcess(directory / "away", "away", "guest", code, game.players,
                                 f"mqtt://127.0.0.1:{self.link.port}", first,
                                 keepalive_s=keepalive_s, clock=clock)
        self.tables = (self.host, self.guest)

    def meet(self, timeout: float = 30.0) -> None:
        """Both tables are up and each has heard the other's hello."""
        wait(lambda: all("the other table is here" in t.notes().rsplit("paused", 1)[-1]
                         for t in self.tables), "the two tables meet", self.tables, timeout)

    def play(self, start: int, end: int,
             faults: dict[int, Callable[[], None]] | None = None,
             mid_follow: dict[int, Callable[[], None]] | None = None) -> None:
        """Turns ``start`` to ``end`` (0-based, end excluded); ``faults[i]`` runs just after
        the mover committed turn i (before the other table has laid it out),
        ``mid_follow[i]`` once the other table's person carried out its first step."""
        by_seat = {0: self.host, 1: self.guest}
        turns = self.game.turns
        for index in range(start, end):
            turn = turns[index]
            mover, follower = by_seat[turn.seat], by_seat[1 - turn.seat]
            following = turns[index + 1].seat if index + 1 < len(turns) else 1 - turn.seat
            play_own(mover, turn.actions, following, reference_before(self.game, index),
                     index + 1, self.tables)
            if faults and index in faults:
                faults[index]()
            follow(follower, index + 1, self.tables,
                   after_first_step=(mid_follow or {}).get(index))

    def differences(self, stored: list[tuple[int, int, str]]) -> list[str]:
        """Where the stored turns differ from the transcript's: the seat, or the board a
        turn leads to (the tables name discovered systems their own way)."""
        game, players = self.game, self.game.players
        played = GameState(rules_for_game(game, None), 2, first_to_move=game.turns[0].seat)
        replayed = played.copy()
        out = []
        for (number, seat, sdg), turn in zip(stored, game.turns, strict=False):
            played.apply_turn(turn.actions)
            replayed.apply_turn(turn_from_sdg(sdg, seat, players))
            if seat != turn.seat or board_key(played) != board_key(replayed):
                out.append(f"turn {number}: {sdg!r} by seat {seat}; the transcript: "
                           f"{turn_to_sdg(turn.actions, players)!r} by seat {turn.seat}")
        return out

    def close(self) -> None:
        for table in self.tables:
            table.close()
        self.link.close()


def kill_and_restart(table: PlayProcess, match: Match) -> Callable[[], None]:
    def fault() -> None:
        table.kill()
        time.sleep(0.3)
        table.start()
    return fault


def kill_broker(match: Match) -> Callable[[], None]:
    def fault() -> None:
        match.broker.kill()
        time.sleep(0.5)
        match.broker.start()
    return fault


def blackhole(match: Match, seconds: float) -> Callable[[], None]:
    """The guest's network goes silent (nothing closed) until both tables noticed, then
    comes back after ``seconds`` in all."""
    def fault() -> None:
        host_notes = match.host.notes().count("waiting for the other table")
        guest_notes = match.guest.notes().count("link to the broker is lost")
        match.link.blackhole()
        began = time.monotonic()
        wait(lambda: match.host.notes().count("waiting for the other table") > host_notes
             and match.guest.notes().count("link to the broker is lost") > guest_notes,
             "both tables notice the silent link (keepalive)", match.tables)
        time.sleep(max(0.0, seconds - (time.monotonic() - began)))
        match.link.restore()
    return fault


def check_equal(match: Match, turns: int) -> None:
    wait(lambda: len(match.host.stored()) == len(match.guest.stored()) == turns,
         f"both stores hold {turns} turns", match.tables)
    host = match.host.stored()
    assert host == match.guest.stored()
    assert [number for number, _, _ in host] == list(range(1, turns + 1))
    assert match.differences(host) == []
    # The clocks too: each turn's mover's time after it (a timed game, 600 s + 2 s), as
    # the table that made it read it, adopted by the other (across every fault).
    clocks = match.host.stored("number, clock_ms")
    assert clocks == match.guest.stored("number, clock_ms")
    assert all(ms is not None for number, ms in clocks[2:]), clocks  # after the setup


def play_with_faults(tmp_path: Path, broker, game_file: Path, turns: int | None) -> Match:
    game = read_sdg_file(game_file)
    turns = len(game.turns) if turns is None else turns
    match = Match(tmp_path, broker, game)
    try:
        match.meet()
        # Spread over the game: the guest's play process killed right after a turn was
        # committed; the host's killed while its person lays out the guest's turn half
        # way; the broker killed; the guest's network silent for a while.
        third = max(3, turns // 4)
        faults = {third: kill_and_restart(match.guest, match),
                  2 * third: kill_broker(match),
                  3 * third - 1: blackhole(match, 8.0)}
        guest_moves = [i for i in range(third + 1, 2 * third)
                       if game.turns[i].seat == match.guest.seat]
        mid_follow = {guest_moves[0]: kill_and_restart(match.host, match)}
        match.play(0, turns, {i: f for i, f in faults.items() if i < turns}, mid_follow)
        check_equal(match, turns)
        assert match.guest.kills == 1 and match.host.kills == 1
    except BaseException:
        match.close()
        raise
    return match


def test_two_play_processes_survive_a_kill_a_broker_restart_and_a_silent_link(tmp_path,
                                                                             broker):
    match = play_with_faults(tmp_path, broker, GAMES / "3426.raw", None)
    try:
        # The guest's host noticed the silent link by its keepalive, the host by the
        # broker's last will; both went on.
        assert "paused: the link to the broker is lost" in match.guest.notes()
        assert "paused: waiting for the other table" in match.host.notes()
        for table in match.tables:
            assert "refused" not in table.notes(), table.notes()
    finally:
        match.close()


@pytest.mark.corpus
@pytest.mark.parametrize("name", ["6980", "28841"])
def test_two_whole_archive_games_through_every_fault(tmp_path, broker, name):
    match = play_with_faults(tmp_path, broker, GAMES / f"{name}.raw", None)
    match.close()
