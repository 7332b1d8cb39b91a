"""A simulated table one of whose seats is played from a phone (``PhoneSeat``): the other
seat's player plays an archive game with their hands (``TableDriver``); the phone's turns
are laid out by the lights and the simulated person follows them (``carry_out``). The
store records every committed turn."""

from __future__ import annotations

from pathlib import Path

from homeworlds.notation import read_sdg_file
from homeworlds.remote.phone import PhoneSeat
from homeworlds.replay import rules_for_game
from homeworlds.rules import GameState
from homeworlds.runtime.table_replay import SimulatedTableGame
from homeworlds.runtime.terminal import end_game
from homeworlds.session import ComputerSeat, Stage
from homeworlds.store import GameRecorder, GameStore
from homeworlds.store.phone_claims import PhoneClaims
from tests.remote.tables import follow_remote_turn, play_own_turn, pump

GAME = Path(__file__).parent.parent / "data" / "games" / "sdg" / "3426.raw"


class PhoneTable:
    """The table, its store, and seat ``phone_seat`` played from a phone."""

    def __init__(self, directory: Path, phone_seat: int, *, start: bool = True,
                 game_path: Path = GAME, code: str | None = None, clock_spec=None):
        self.game = read_sdg_file(game_path)
        self.name = "table"
        self.rules = rules_for_game(self.game, None)
        players = self.game.players
        first = self.game.turns[0].seat
        holder: list[PhoneSeat] = []
        self.sim = SimulatedTableGame(
            self.rules, players, first_seat=first, miss_rate=0.0, seed=3,
            computer_seats={phone_seat: ComputerSeat()},
            player_factory=lambda *a: holder[0].player_factory(*a),
            **({"clock_spec": clock_spec} if clock_spec is not None else {}))
        self.session = self.sim.session
        self.recorder = GameRecorder(directory / "table.sqlite", table=self.name,
                                     layout="standard-2p")
        self.recorder.open()
        self.recorder.start_game(self.rules, players, first)
        #: the claim kept in the table's store, as ``play`` keeps it
        self.claims = PhoneClaims(self.recorder.path, self.name)
        self.phone = PhoneSeat(self.session, phone_seat, code=code, claims=self.claims)
        holder.append(self.phone)
        # The phone's resignation and an accepted draw are recorded as `play` records them.
        self.phone.end_game = lambda kind, seat: end_game(self.session, self.recorder,
                                                          players, kind, seat)
        self.phone.attach()
        tracker = self.session.tracker
        self.session.events.committed.listen(Stage.STORE, lambda c: self.recorder.turn(
            len(tracker.record), c.seat, c.turn, c.state, players, tracker.star_tags))
        self.started = start
        if start:
            self.sim.__enter__()

    def pump_once(self) -> None:
        for event in self.sim.link.poll(0.002):
            self.session.handle(event)
        self.session.tick()

    def pump_until(self, until, what: str, timeout: float = 30.0) -> None:
        pump([self], until, what, timeout)

    def in_step(self) -> bool:
        return self.sim.host.in_step() and self.session.judged

    def reference_before(self, index: int) -> GameState:
        state = GameState(self.rules, 2, first_to_move=self.game.turns[0].seat)
        for turn in self.game.turns[:index]:
            state.apply_turn(turn.actions)
        return state

    def play_table_turn(self, index: int) -> None:
        """The table's own player makes the archive's turn ``index`` with their hands."""
        turns = self.game.turns
        following = turns[index + 1].seat if index + 1 < len(turns) else 1 - turns[index].seat
        play_own_turn(self, turns[index].actions, following, [self],
                      self.reference_before(index))

    def follow_phone_turn(self) -> list[str]:
        """The person at the table lays out the phone's turn as the lights show it."""
        return follow_remote_turn(self, [self])

    def stored_turns(self) -> list[tuple[int, int, str]]:
        store = GameStore.open(self.recorder.path)
        try:
            game = store.latest_game(self.name)
            return [] if game is None else [(t.number, t.seat, t.sdg)
                                            for t in store.turns(game.id)]
        finally:
            store.close()

    def stored_result(self):
        store = GameStore.open(self.recorder.path)
        try:
            game = store.latest_game(self.name)
            return None if game is None else store.result(game.id)
        finally:
            store.close()

    def close(self) -> None:
        self.phone.close()
        self.recorder.close()
        if self.started:
            self.sim.__exit__(None, None, None)
