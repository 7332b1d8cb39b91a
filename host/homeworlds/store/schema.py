"""The game store's tables (SQLite), and its version.

The version lives in ``PRAGMA user_version``. A store of an older version is migrated
in one transaction (``MIGRATIONS``); a newer or foreign one is refused. docs/store.md
describes every table and column.
"""

from __future__ import annotations

#: The schema this code writes. Bump it with a migration in MIGRATIONS.
SCHEMA_VERSION = 2

#: The application id SQLite keeps in the file header (``PRAGMA application_id``): "HWTS".
APPLICATION_ID = 0x48575453

SCHEMA = """
CREATE TABLE tables (
    id       INTEGER PRIMARY KEY,
    name     TEXT NOT NULL UNIQUE,
    layout   TEXT NOT NULL,
    created  TEXT NOT NULL
);
CREATE TABLE players (
    id    INTEGER PRIMARY KEY,
    name  TEXT NOT NULL UNIQUE COLLATE NOCASE
);
CREATE TABLE games (
    id          INTEGER PRIMARY KEY,
    uid         TEXT NOT NULL UNIQUE,
    table_id    INTEGER NOT NULL REFERENCES tables(id),
    rules       TEXT NOT NULL,
    handicaps   TEXT NOT NULL,
    first_seat  INTEGER NOT NULL,
    started     TEXT NOT NULL,
    ended       TEXT,
    status      TEXT NOT NULL DEFAULT 'playing'
                CHECK (status IN ('playing', 'won', 'drawn', 'resigned', 'agreed-draw',
                                  'abandoned'))
);
CREATE INDEX games_by_table ON games(table_id, id);
CREATE TABLE game_players (
    game_id    INTEGER NOT NULL REFERENCES games(id),
    seat       INTEGER NOT NULL,
    player_id  INTEGER NOT NULL REFERENCES players(id),
    alignment  TEXT CHECK (alignment IS NULL OR alignment IN ('good', 'evil')),
    PRIMARY KEY (game_id, seat)
);
CREATE TABLE turns (
    game_id    INTEGER NOT NULL REFERENCES games(id),
    number     INTEGER NOT NULL CHECK (number >= 1),
    seat       INTEGER NOT NULL,
    sdg        TEXT NOT NULL,
    position   TEXT NOT NULL,
    star_tags  TEXT NOT NULL,
    committed  TEXT NOT NULL,
    PRIMARY KEY (game_id, number)
);
CREATE TABLE results (
    game_id   INTEGER PRIMARY KEY REFERENCES games(id),
    kind      TEXT NOT NULL,
    winners   TEXT NOT NULL,
    by_seat   INTEGER,
    at        TEXT NOT NULL,
    after_turn INTEGER NOT NULL
);
CREATE TABLE observations (
    id          INTEGER PRIMARY KEY,
    game_id     INTEGER NOT NULL REFERENCES games(id),
    after_turn  INTEGER NOT NULL,
    seen        TEXT NOT NULL,
    zones       TEXT NOT NULL
);
CREATE INDEX observations_by_game ON observations(game_id, after_turn);
"""

#: Undo of a committed turn (the display's admin action): the turn moves to
#: ``withdrawn_turns``, nothing is deleted, and the hand-overs journalled for it are marked
#: so that a restart does not commit it again (docs/store.md).
_V2_UNDO = """
CREATE TABLE withdrawn_turns (
    id         INTEGER PRIMARY KEY,
    game_id    INTEGER NOT NULL REFERENCES games(id),
    number     INTEGER NOT NULL,
    seat       INTEGER NOT NULL,
    sdg        TEXT NOT NULL,
    position   TEXT NOT NULL,
    star_tags  TEXT NOT NULL,
    committed  TEXT NOT NULL,
    withdrawn  TEXT NOT NULL
);
CREATE INDEX withdrawn_turns_by_game ON withdrawn_turns(game_id, number);
ALTER TABLE observations ADD COLUMN withdrawn TEXT;
"""

SCHEMA += _V2_UNDO

#: version -> SQL that brings a store of that version to the next one.
MIGRATIONS: dict[int, str] = {1: _V2_UNDO}
