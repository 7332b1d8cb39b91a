-- A version-1 game store (one unfinished game, three turns), written by the
-- homeworlds code before game clocks (commit 8b8e16f), dumped with sqlite3's
-- iterdump. tests/store/test_store_migration.py rebuilds it and opens it.
BEGIN TRANSACTION;
CREATE TABLE game_players (
    game_id    INTEGER NOT NULL REFERENCES games(id),
    seat       INTEGER NOT NULL,
    player_id  INTEGER NOT NULL REFERENCES players(id),
    alignment  TEXT CHECK (alignment IS NULL OR alignment IN ('good', 'evil')),
    PRIMARY KEY (game_id, seat)
);
INSERT INTO "game_players" VALUES(1,0,1,NULL);
INSERT INTO "game_players" VALUES(1,1,2,NULL);
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
INSERT INTO "games" VALUES(1,'df4f6270fc814f038c18ef2439587477',1,'looney','{"brain_transference": false, "junior_seat": 1, "red_alert": false, "timewarp_turns": 0}',0,'2026-11-20T10:00:00.000+00:00',NULL,'playing');
CREATE TABLE observations (
    id          INTEGER PRIMARY KEY,
    game_id     INTEGER NOT NULL REFERENCES games(id),
    after_turn  INTEGER NOT NULL,
    seen        TEXT NOT NULL,
    zones       TEXT NOT NULL
);
CREATE TABLE players (
    id    INTEGER PRIMARY KEY,
    name  TEXT NOT NULL UNIQUE COLLATE NOCASE
);
INSERT INTO "players" VALUES(1,'Ann');
INSERT INTO "players" VALUES(2,'Bob');
CREATE TABLE results (
    game_id   INTEGER PRIMARY KEY REFERENCES games(id),
    kind      TEXT NOT NULL,
    winners   TEXT NOT NULL,
    by_seat   INTEGER,
    at        TEXT NOT NULL,
    after_turn INTEGER NOT NULL
);
CREATE TABLE tables (
    id       INTEGER PRIMARY KEY,
    name     TEXT NOT NULL UNIQUE,
    layout   TEXT NOT NULL,
    created  TEXT NOT NULL
);
INSERT INTO "tables" VALUES(1,'club-1','standard-2p','2026-11-20T10:00:00.000+00:00');
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
INSERT INTO "turns" VALUES(1,1,0,'Homeworld Y1 B2 G3','{"over": false, "result": null, "systems": [{"home_of": 0, "name": "Ann", "ships": [["g3"], []], "stars": ["y1", "b2"]}], "to_move": 1, "winners": []}','{}','2026-11-20T10:00:01.000+00:00');
INSERT INTO "turns" VALUES(1,2,1,'Homeworld R1 Y2 G3','{"over": false, "result": null, "systems": [{"home_of": 0, "name": "Ann", "ships": [["g3"], []], "stars": ["y1", "b2"]}, {"home_of": 1, "name": "Bob", "ships": [[], ["g3"]], "stars": ["r1", "y2"]}], "to_move": 0, "winners": []}','{}','2026-11-20T10:00:02.000+00:00');
INSERT INTO "turns" VALUES(1,3,0,'Build G1 Ann','{"over": false, "result": null, "systems": [{"home_of": 0, "name": "Ann", "ships": [["g1", "g3"], []], "stars": ["y1", "b2"]}, {"home_of": 1, "name": "Bob", "ships": [[], ["g3"]], "stars": ["r1", "y2"]}], "to_move": 1, "winners": []}','{}','2026-11-20T10:00:03.000+00:00');
CREATE INDEX games_by_table ON games(table_id, id);
CREATE INDEX observations_by_game ON observations(game_id, after_turn);
COMMIT;
PRAGMA application_id = 1213682771;
PRAGMA user_version = 1;
