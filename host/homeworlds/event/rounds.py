"""The rounds of an event, kept in the hub's store: the players, each round's pairings,
the results the games gave (or an organiser corrected), the standings.

A pairing's game is the first game between its two players that a table started after the
round did (a table names its players in its configuration). An organiser may correct a
result (a flag fall the table did not see, a wrong seat): the correction overrides what
the table reported, and the table's record stays as it was.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

from homeworlds.event.pairing import Outcome, PairingError, round_robin, standings, swiss
from homeworlds.store import GameStore, StoredGame
from homeworlds.store.recorder import utc_now

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
        self.format = fmt

    # ------------------------------------------------------------------ players

    def players(self) -> list[str]:
        return [r[0] for r in self.store._read("SELECT name FROM event_players ORDER BY seq")]

    def set_players(self, names: list[str]) -> None:
        names = [n.strip() for n in names if n.strip()]
        if len({n.casefold() for n in names}) != len(names):
            raise PairingError("a player is named twice")
        if self.rounds():
            raise PairingError("the players are fixed once the first round started")

        def work(c: sqlite3.Connection) -> None:
            c.execute("DELETE FROM event_players")
            c.executemany("INSERT INTO event_players(name, seq) VALUES (?, ?)",
                          [(n, k) for k, n in enumerate(names)])
        self.store._write(work)

    # ------------------------------------------------------------------ rounds

    def rounds(self) -> list[tuple[int, str]]:
        return [(r[0], r[1]) for r in self.store._read(
            "SELECT number, started FROM event_rounds ORDER BY number")]

    def boards(self) -> list[Board]:
        rows = self.store._read(
            "SELECT p.round, p.board, p.player_a, p.player_b, r.started FROM event_pairings p "
            "JOIN event_rounds r ON r.number = p.round ORDER BY p.round, p.board")
        games = self.store.games()
        corrections = {r[0]: json.loads(r[1]) for r in self.store._read(
            "SELECT game_id, winners FROM result_corrections")}
        used: set[int] = set()
        out = []
        for rnd, board, a, b, started in rows:
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
        started = utc_now()

        def work(c: sqlite3.Connection) -> None:
            c.execute("INSERT INTO event_rounds(number, started) VALUES (?, ?)",
                      (number, started))
            c.executemany("INSERT INTO event_pairings(round, board, player_a, player_b) "
                          "VALUES (?, ?, ?, ?)",
                          [(number, k + 1, a, b) for k, (a, b) in enumerate(pairs)])
        self.store._write(work)
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

        def work(c: sqlite3.Connection) -> None:
            c.execute("INSERT INTO result_corrections(game_id, winners, note, at) VALUES "
                      "(?, ?, ?, ?) ON CONFLICT(game_id) DO UPDATE SET winners = "
                      "excluded.winners, note = excluded.note, at = excluded.at",
                      (game_id, json.dumps(winners), note, utc_now()))
        self.store._write(work)
