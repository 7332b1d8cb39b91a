"""Exports of stored games (SDG, cooked, JSON), and the atomic file write they share.

An export is a copy for people and other programs; the store stays the record. A file is
replaced atomically: the text goes to a fresh temporary file in the same directory
(``tempfile`` creates it with O_EXCL, so no existing file or symlink is followed), which is
fsynced, renamed over the target, and the directory is fsynced, so a power cut leaves the
old file or the new one, never a torn one. A read-only target is not replaced.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from homeworlds.notation import CookedGame, sdg_game, write_cooked, write_sdg
from homeworlds.rules import (
    GameState,
    Handicaps,
    Homeworld,
    HomeworldsError,
    SetupPick,
    preset,
)
from homeworlds.store.database import GameStore, StoredGame, StoredResult
from homeworlds.store.records import cooked_systems, position_to_json, turn_from_sdg

FORMATS = ("sdg", "cooked", "json")

#: Prefix of the temporary files (a leftover after a crash is recognisable and removed).
TEMP_PREFIX = ".hw-export-"


class ExportError(Exception):
    pass


def write_atomically(path: str | Path, text: str) -> None:
    """Replace ``path`` by ``text`` so that a crash leaves either version whole.

    OSError propagates (disk full, no permission); the temporary file is then removed.
    """
    path = Path(path)
    try:
        st = path.lstat()
    except FileNotFoundError:
        st = None
    if st is not None:
        if stat.S_ISLNK(st.st_mode):
            raise ExportError(f"{path} is a symbolic link: not replaced (remove it or "
                              "choose another file)")
        if not stat.S_ISREG(st.st_mode):
            raise ExportError(f"{path} is not a regular file: not replaced")
        if not st.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
            raise ExportError(f"{path} is read-only: not replaced (make it writable or "
                              "choose another file)")
    directory = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=TEMP_PREFIX + path.name + ".", suffix=".tmp",
                               dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        if st is not None:
            os.chmod(tmp, stat.S_IMODE(st.st_mode))
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    dir_fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def remove_stale_temporaries(path: str | Path) -> None:
    """Temporary files a crash left beside ``path`` (ours only: regular files)."""
    path = Path(path)
    directory = path.parent if str(path.parent) else Path(".")
    try:
        entries = list(directory.iterdir())
    except OSError:
        return
    for entry in entries:
        if entry.name.startswith(TEMP_PREFIX + path.name + ".") and entry.name.endswith(".tmp"):
            try:
                if stat.S_ISREG(entry.lstat().st_mode):
                    entry.unlink()
            except OSError:
                pass


# ---------------------------------------------------------------------- formats


def game_turns(store: GameStore, game: StoredGame) -> list[tuple[int, tuple]]:
    return [(t.seat, turn_from_sdg(t.sdg, t.seat, game.players))
            for t in store.turns(game.id)]


def record_sdg(players, record, *, number: int | None = None, winner: str | None = None,
               started: str | None = None, rules: str | None = None,
               alignments: Sequence[str | None] | None = None, game: str | None = None,
               reveals: Mapping[int, Mapping[int, str]] | None = None,
               handicaps: Handicaps | None = None) -> str:
    """SDG text of a record (seat, turn) with the table's players in seat order; the
    ``Rules:``, ``Handicaps:``, Good/Evil ``Alignments:`` and ``Game:`` (the stored game's
    uid) header lines when given (docs/notation.md). ``reveals`` (turn number to {seat:
    alignment}, Good/Evil) become a comment after the turn at whose end an elimination
    revealed them (``Alignments revealed: Ann Evil``)."""
    # Alignments go in whole or not at all: a seat without one drops the line.
    known = None if alignments is None or None in alignments else \
        [a for a in alignments if a is not None]
    comments = {turn_number: revealed_comment(players, revealed)
                for turn_number, revealed in (reveals or {}).items()}
    try:
        sdg = sdg_game(players, [turn for _, turn in record], seats=[s for s, _ in record],
                       number=number, winner=winner, started=started, rules=rules,
                       alignments=known, game=game, comments=comments, handicaps=handicaps)
        return write_sdg(sdg)
    except TypeError as exc:  # an action SDG has no words for (an alternating-setup pick)
        raise ExportError(f"the game cannot be written in SDG notation: {exc}") from None


def revealed_comment(players, revealed: Mapping[int, str]) -> str:
    """The SDG comment of alignments revealed at the end of a turn (Good/Evil)."""
    return "Alignments revealed: " + ", ".join(
        f"{players[seat]} {alignment.capitalize()}" for seat, alignment in sorted(revealed.items()))


def replayed_reveals(rules: str | None, players, record, alignments
                     ) -> dict[int, dict[int, str]]:
    """Good/Evil: the alignments the record's eliminations revealed, by turn number (as
    ``TurnTracker.reveals``), found by replaying it; empty when there is no deal or the
    record does not replay (the turns in the store are what counts)."""
    if rules is None or alignments is None or any(a is None for a in alignments):
        return {}
    try:
        first = record[0][0] if record else 0
        state = GameState(preset(rules), len(players), first_to_move=first,
                          alignments=alignments)
        for seat, turn in record:
            if seat != state.to_move and len(players) > 2:
                state.to_move = seat  # seats passed over (docs/replay.md)
            state.apply_turn(turn)
    except (HomeworldsError, ValueError):
        return {}
    out: dict[int, dict[int, str]] = {}
    for seat, index in enumerate(state.revealed):
        card = alignments[seat]
        if index is not None and card is not None:
            out.setdefault(index + 1, {})[seat] = card
    return out


def export_sdg(store: GameStore, game: StoredGame) -> str:
    result = store.result(game.id)
    record = game_turns(store, game)
    return record_sdg(game.players, record, number=game.id,
                      winner=_winner_names(game, result), started=game.started,
                      rules=game.rules, alignments=game.alignments,
                      reveals=replayed_reveals(game.rules, game.players, record,
                                               game.alignments),
                      handicaps=stored_handicaps(game))


def stored_handicaps(game: StoredGame) -> Handicaps | None:
    """The novice handicaps a stored game was played with (None: none, or a record the
    store wrote with keys this version does not know)."""
    try:
        return Handicaps(**game.handicaps) if game.handicaps else None
    except TypeError:
        return None


def _winner_names(game: StoredGame, result: StoredResult | None) -> str | None:
    if result is None or not result.winners:
        return None
    return ", ".join(game.players[s] for s in result.winners)


def export_cooked(store: GameStore, game: StoredGame) -> str:
    """The position after setup, then every later turn (cooked files have no setup
    actions; they seat two players)."""
    if len(game.players) != 2:
        raise ExportError(f"game {game.id} has {len(game.players)} players; the cooked "
                          "format holds two")
    record = game_turns(store, game)
    state = GameState(preset(game.rules), 2, first_to_move=game.first_seat)
    k = 0
    while k < len(record) and state.in_setup:
        if not all(isinstance(a, (Homeworld, SetupPick)) for a in record[k][1]):
            break
        state.push(record[k][1])
        k += 1
    systems = cooked_systems(position_to_json(state))
    assert systems is not None  # two players, checked above
    comments = (f"game {game.id}: {' v '.join(game.players)}, rules {game.rules}, "
                f"started {game.started}, {game.status}",)
    return write_cooked(CookedGame(systems, tuple(t for _, t in record[k:]),
                                   comments=comments))


def export_json(store: GameStore, game: StoredGame) -> str:
    result = store.result(game.id)
    data = {
        "id": game.id, "uid": game.uid, "table": game.table, "rules": game.rules,
        "handicaps": game.handicaps, "first_seat": game.first_seat, "started": game.started,
        "ended": game.ended, "status": game.status, "clock": game.clock,
        "players": [{"seat": k, "name": name, "alignment": game.alignments[k]}
                    for k, name in enumerate(game.players)],
        "turns": [{"number": t.number, "seat": t.seat, "player": game.players[t.seat],
                   "sdg": t.sdg.splitlines(), "position": t.position,
                   "committed": t.committed, "elapsed_ms": t.elapsed_ms,
                   "clock_ms": t.clock_ms} for t in store.turns(game.id)],
        "result": None if result is None else {
            "kind": result.kind, "winners": [game.players[s] for s in result.winners],
            "by": None if result.by_seat is None else game.players[result.by_seat],
            "at": result.at, "after_turn": result.after_turn},
    }
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def export_game(store: GameStore, game: StoredGame, fmt: str) -> str:
    if fmt == "sdg":
        return export_sdg(store, game)
    if fmt == "cooked":
        return export_cooked(store, game)
    if fmt == "json":
        return export_json(store, game)
    raise ExportError(f"unknown format {fmt!r} (formats: {', '.join(FORMATS)})")
