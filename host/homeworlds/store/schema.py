"""The game store's tables (SQLite), and its version.

The version lives in ``PRAGMA user_version``. A store of an older version is migrated
in one transaction (``MIGRATIONS``); a newer or foreign one is refused. docs/store.md
describes every table and column.
"""

from __future__ import annotations

#: The schema this code writes. Bump it with a migration in MIGRATIONS.
SCHEMA_VERSION = 3

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
                                  'abandoned')),
    clock       TEXT
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
    elapsed_ms INTEGER CHECK (elapsed_ms IS NULL OR elapsed_ms >= 0),
    clock_ms   INTEGER CHECK (clock_ms IS NULL OR clock_ms >= 0),
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

#: Game clocks (docs/clocks.md): a game's time control as JSON (NULL: untimed), and per
#: turn the milliseconds the mover's clock ran and what it showed after the turn (NULL:
#: an untimed turn). A flag fall is a result of kind 'flag' with status 'won', so neither
#: CHECK changes. Additive: a version-1 store keeps every row, its turns untimed.
_V2_CLOCKS = """
ALTER TABLE games ADD COLUMN clock TEXT;
ALTER TABLE turns ADD COLUMN elapsed_ms INTEGER CHECK (elapsed_ms IS NULL OR elapsed_ms >= 0);
ALTER TABLE turns ADD COLUMN clock_ms INTEGER CHECK (clock_ms IS NULL OR clock_ms >= 0);
"""

#: Events (docs/event.md). ``publish_events``: from which game on this table publishes to
#: an event (older games, e.g. played at home, stay private). ``publish_cursor``: how much
#: of each game the event's MQTT broker acknowledged (the table's outbox is the store's
#: turns beyond the cursor). ``event_players`` / ``event_rounds`` / ``event_pairings`` /
#: ``result_corrections``: the hub's rounds, the pairings it made and the results an
#: organiser corrected (a table's store has none).
_V2_OUTBOX = """
CREATE TABLE publish_events (
    event       TEXT PRIMARY KEY,
    first_game  INTEGER NOT NULL,
    since       TEXT NOT NULL
);
CREATE TABLE publish_cursor (
    game_id       INTEGER PRIMARY KEY REFERENCES games(id),
    announced     INTEGER NOT NULL DEFAULT 0,
    turns_acked   INTEGER NOT NULL DEFAULT 0,
    result_acked  INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE event_players (
    name  TEXT PRIMARY KEY COLLATE NOCASE,
    seq   INTEGER NOT NULL
);
CREATE TABLE event_rounds (
    number   INTEGER PRIMARY KEY CHECK (number >= 1),
    started  TEXT NOT NULL
);
CREATE TABLE event_pairings (
    round     INTEGER NOT NULL REFERENCES event_rounds(number),
    board     INTEGER NOT NULL,
    player_a  TEXT NOT NULL,
    player_b  TEXT,
    table_name TEXT,
    PRIMARY KEY (round, board)
);
CREATE TABLE result_corrections (
    game_id  INTEGER PRIMARY KEY REFERENCES games(id),
    winners  TEXT NOT NULL,
    note     TEXT NOT NULL,
    at       TEXT NOT NULL
);
"""

SCHEMA += _V2_OUTBOX

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
    elapsed_ms INTEGER,
    clock_ms   INTEGER,
    withdrawn  TEXT NOT NULL
);
CREATE INDEX withdrawn_turns_by_game ON withdrawn_turns(game_id, number);
ALTER TABLE observations ADD COLUMN withdrawn TEXT;
"""

SCHEMA += _V2_UNDO

#: Version 3: players who left a game of three or more, and turns missed (``resign`` and
#: ``skip`` of the admin and the terminal, docs/store.md): a resumed game goes on without
#: the players who left. ``after_turn``: the turns committed when it happened; ``withdrawn``:
#: set when an undo withdrew a turn before it (kept, never deleted).
_V3_DEPARTURES = """
CREATE TABLE departures (
    id         INTEGER PRIMARY KEY,
    game_id    INTEGER NOT NULL REFERENCES games(id),
    after_turn INTEGER NOT NULL CHECK (after_turn >= 0),
    kind       TEXT NOT NULL CHECK (kind IN ('resigned', 'skipped')),
    seat       INTEGER NOT NULL CHECK (seat >= 0),
    at         TEXT NOT NULL,
    withdrawn  TEXT
);
CREATE INDEX departures_by_game ON departures(game_id, after_turn);
"""

SCHEMA += _V3_DEPARTURES

#: version -> SQL that brings a store of that version to the next one.
#: Version 2 came from three features at once (clocks, the event outbox, undo): one
#: migration, one transaction.
MIGRATIONS: dict[int, str] = {1: _V2_CLOCKS + _V2_OUTBOX + _V2_UNDO, 2: _V3_DEPARTURES}
