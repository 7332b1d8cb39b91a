"""The rounds of an event, kept in the hub's store: the players, each round's pairings,
the results the games gave (or an organiser corrected), the standings.

A pairing's game is the first game between its two players that a table started after the
round did (a table names its players in its configuration). An organiser may correct a
result (a flag fall the table did not see, a wrong seat): the correction overrides what
the table reported, and the table's record stays as it was.
"""

from __future__ import annotations

from dataclasses import dataclass

from homeworlds.event.pairing import (
    Outcome,
    PairingError,
    round_robin,
    standings,
    standings_with_tiebreak,
    swiss,
)
from homeworlds.store import GameStore, StoredGame
from homeworlds.store.recorder import utc_now
from homeworlds.store.rounds import StoredRounds

FORMATS = ("swiss", "round-robin")


@dataclass(frozen=True, slots=True)
class Board:
    round: int
    board: int
    a: str
    b: str | None
    game: StoredGame | None
    #: the winner's name, "" for a draw, None while the game is not finished
    winner: str | None
    corrected: bool = False

    @property
    def outcome(self) -> Outcome | None:
        if self.b is None:
            return Outcome(self.a, None, self.a)
        if self.winner is None:
            return None
        return Outcome(self.a, self.b, self.winner or None)


class EventBook:
    def __init__(self, store: GameStore, fmt: str = "swiss"):
        if fmt not in FORMATS:
            raise ValueError(f"unknown event format {fmt!r} (formats: {', '.join(FORMATS)})")
        self.store = store
        self.record = StoredRounds(store)
        self.format = fmt

    # ------------------------------------------------------------------ players

    def players(self) -> list[str]:
        return self.record.players()

    def set_players(self, names: list[str]) -> None:
        names = [n.strip() for n in names if n.strip()]
        if len({n.casefold() for n in names}) != len(names):
            raise PairingError("a player is named twice")
        if self.rounds():
            raise PairingError("the players are fixed once the first round started")
        self.record.replace_players(names)

    # ------------------------------------------------------------------ rounds

    def rounds(self) -> list[tuple[int, str]]:
        """(number, when it started) of every round, in order."""
        return [(r.number, r.started) for r in self.record.rounds()]

    def boards(self) -> list[Board]:
        games = self.store.games()
        corrections = self.record.corrections()
        used: set[int] = set()
        out = []
        for pairing in self.record.pairings():
            rnd, board, a, b = pairing.round, pairing.board, pairing.player_a, pairing.player_b
            started = pairing.started
            game = None
            if b is not None:
                want = {a.casefold(), b.casefold()}
                game = next((g for g in games if g.id not in used and g.started >= started
                             and {p.casefold() for p in g.players} == want), None)
            winner: str | None = None
            corrected = False
            if game is not None:
                used.add(game.id)
                if game.id in corrections:
                    corrected = True
                    winners = corrections[game.id]
                    winner = game.players[winners[0]] if winners else ""
                elif game.finished:
                    result = self.store.result(game.id)
                    winners = list(result.winners) if result else []
                    winner = game.players[winners[0]] if len(winners) == 1 else ""
            out.append(Board(rnd, board, a, b, game, winner, corrected))
        return out

    def outcomes(self) -> list[Outcome]:
        return [o for o in (b.outcome for b in self.boards()) if o is not None]

    def standings(self) -> list[tuple[str, float]]:
        return standings(self.players(), self.outcomes())

    def standings_with_tiebreak(self) -> list[tuple[str, float, float]]:
        """(player, points, Buchholz), best first (``pairing.standings_with_tiebreak``)."""
        return standings_with_tiebreak(self.players(), self.outcomes())

    def next_pairings(self) -> list[tuple[str, str | None]]:
        players = self.players()
        if len(players) < 2:
            raise PairingError("name at least two players first")
        done = len(self.rounds())
        if self.format == "round-robin":
            schedule = round_robin(players)
            if done >= len(schedule):
                raise PairingError(f"all {len(schedule)} rounds of the round robin were "
                                   "paired")
            return schedule[done]
        unfinished = [b for b in self.boards() if b.outcome is None]
        if unfinished:
            raise PairingError(f"round {unfinished[0].round} is still being played "
                               f"({unfinished[0].a} v {unfinished[0].b})")
        return swiss(players, self.outcomes())

    def start_round(self) -> int:
        pairs = self.next_pairings()
        number = len(self.rounds()) + 1
        self.record.add_round(number, utc_now(), pairs)
        return number

    def correct_result(self, game_id: int, winner: str | None, note: str) -> None:
        """``winner``: a player of the game, or None for a draw."""
        game = self.store.game(game_id)
        if game is None:
            raise PairingError(f"the hub has no game {game_id}")
        if winner is None:
            winners: list[int] = []
        else:
            seats = [k for k, p in enumerate(game.players) if p.casefold() == winner.casefold()]
            if not seats:
                raise PairingError(f"{winner!r} did not play game {game_id} "
                                   f"({' v '.join(game.players)})")
            winners = seats[:1]
        self.record.correct_result(game_id, winners, note, utc_now())
