"""Three to six simulated tables of one remote game (issue 30: "Setup … for 3+ players
across tables"), each with its own store and link to a real mosquitto: the mover's hands
make its player's turn from an archive game, every other table's lights lay it out and its
simulated person follows them. A player who leaves (the transcript never has them move
again) resigns at their own table, as its admin gives it; every table then applies it."""

from __future__ import annotations

from pathlib import Path

from homeworlds.remote.invitation import Invitation
from homeworlds.replay import infer_departures, rules_for_game
from homeworlds.rules import GameState, Rules, canonical_key
from homeworlds.session import AdminCommand
from tests.remote.tables import RemoteTable, follow_remote_turn, play_own_turn, pump


def tables_for(directory: Path, broker_url: str, players: tuple[str, ...], rules: Rules,
               first: int, *, alignments=None) -> list[RemoteTable]:
    """The host invites ``len(players)`` tables (``hw3-…``); each other table types the
    code in; table k plays seat k. ``alignments``: each table's deal (a Good/Evil game)."""
    invitation = Invitation.new(sides=len(players))
    tables = []
    for seat, role in enumerate(invitation.roles):
        joined = Invitation.from_code(invitation.code)
        tables.append(RemoteTable(directory, f"table{seat}", joined, role, seat, rules,
                                  players, first, broker_url, seats=(seat,),
                                  alignments=alignments))
    return tables


def depart(tables: list[RemoteTable], reference: GameState, seat: int) -> None:
    """Before ``seat``'s turn: each seat the transcript passes over resigns at its own table
    (when ``reference`` has it out) or misses its turn; every table applies it and passes
    the token on."""
    by_seat = {s: t for t in tables for s in t.seats}
    first = tables[0].session.tracker
    while first.state.to_move != seat and not first.is_over:
        mover = first.state.to_move
        owner = by_seat[mover]
        count = len(owner.session.tracker.departures)
        if reference.eliminated[mover] and not owner.session.tracker.state.eliminated[mover]:
            owner.sim.command(AdminCommand("resign", seat=mover))
        else:
            owner.sim.command(AdminCommand("skip"))
        pump(tables, lambda count=count: all(len(t.session.tracker.departures) > count
                                             for t in tables),
             f"every table applies seat {mover}'s departure")
    for table in tables:
        table.sim.driver.hand_over(seat)
    pump(tables, lambda: all(t.in_step() for t in tables), "the token passed on")


def play_game(tables: list[RemoteTable], game, turns: int | None = None, *,
              alignments=None, start: int = 0) -> GameState:
    """Turns of ``game`` up to ``turns`` (all): the mover's table plays each, the others
    follow their lights; after each every table's record, position and store are equal,
    and equal to the transcript (``alignments``: the Good/Evil deal the tables made).
    Returns the transcript's position at the end."""
    rules = rules_for_game(game, None)
    players = len(game.players)
    by_seat = {s: t for t in tables for s in t.seats}
    reference = GameState(rules, players, first_to_move=game.turns[0].seat,
                          alignments=alignments or game.alignments)
    for index, turn in enumerate(game.turns[:turns]):
        if turn.seat != reference.to_move and not reference.is_over:
            infer_departures(reference, game, index, turn.seat)
            if index >= start:
                depart(tables, reference, turn.seat)
        before = reference.copy()
        reference.apply_turn(turn.actions)
        if index < start:
            continue  # played before (``start``: the first turn to play now)
        mover = by_seat[turn.seat]
        following = reference.to_move if not reference.is_over \
            else (turn.seat + 1) % players
        play_own_turn(mover, turn.actions, following, tables, before)
        for follower in tables:
            if follower is not mover:
                follow_remote_turn(follower, tables)
        records = {str(t.session.tracker.record) for t in tables}
        assert len(records) == 1, f"turn {index + 1}: the tables' records differ"
        # A result may wait for a card another table reveals (Good/Evil): it arrives.
        pump(tables, lambda: all(
            canonical_key(t.session.tracker.state) == canonical_key(reference)
            and t.session.tracker.state.result == reference.result for t in tables),
             f"turn {index + 1}: every table's position and result as the transcript's")
        for table in tables:
            assert canonical_key(table.session.tracker.state) == canonical_key(reference), \
                f"turn {index + 1}: {table.name} differs from the transcript"
        stored = [t.stored_turns() for t in tables]
        assert all(s == stored[0] for s in stored) and len(stored[0]) == index + 1
        departures = [t.stored_departures() for t in tables]
        assert all(d == departures[0] for d in departures), departures
    return reference
