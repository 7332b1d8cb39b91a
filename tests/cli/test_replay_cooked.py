"""`homeworlds replay` reads cooked files too (detected by content): the same command checks
both formats, and every archive game in cooked/ replays legal under `--rules strict` except
32225 (docs/replay.md)."""

from __future__ import annotations

import json
import random

import pytest

from homeworlds.cli import main

KNOWN_ILLEGAL = {"32225": (82, "a trade must change the ship's colour")}


def _replay_strict(capsys, files):
    code = main(["replay", "--rules", "strict", "--json", *map(str, files)])
    out, err = capsys.readouterr()
    assert code == 0, err
    return [json.loads(line) for line in out.splitlines()]


def _check(records, names):
    assert [r["file"] for r in records] == [f"{n}.cooked" for n in names]
    for name, record in zip(names, records, strict=True):
        if name in KNOWN_ILLEGAL:
            turn, reason = KNOWN_ILLEGAL[name]
            assert not record["legal"] and record["error"]["turn"] == turn
            assert reason in record["error"]["reason"]
        else:
            assert record["legal"], record


def test_cooked_sample_replays_legal_under_strict(shared_dir, capsys):
    folder = shared_dir / "games" / "cooked"
    names = sorted(p.stem for p in folder.glob("*.cooked"))
    sample = random.Random(10).sample(names, 40) + ["32225", "1001"]
    _check(_replay_strict(capsys, [folder / f"{n}.cooked" for n in sample]), sample)


def test_cooked_and_sdg_of_the_same_game_agree(shared_dir, capsys):
    games = shared_dir / "games"
    assert main(["replay", "--rules", "strict", "--json", str(games / "cooked" / "1001.cooked"),
                 str(games / "sdg" / "1001.raw")]) == 0
    cooked, sdg = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    assert [p.casefold() for p in cooked["players"]] == [p.casefold() for p in sdg["players"]]
    assert (cooked["legal"], cooked["board_end"], cooked["board_winner"]) == (
        sdg["legal"], sdg["board_end"], sdg["board_winner"])
    # cooked turns are counted from the position, here the two homes (SDG turns 1 and 2)
    assert cooked["end_turn"] + 2 == sdg["end_turn"]


def test_readable_line_for_a_cooked_game(shared_dir, capsys):
    assert main(["replay", "--rules", "strict",
                 str(shared_dir / "games" / "cooked" / "1001.cooked")]) == 0
    assert capsys.readouterr().out == ("1001.cooked: Evilaxe vs Mrstickman: legal, 68 turns, "
                                       "opponent-eliminated at turn 68, won by Mrstickman\n")


def test_illegal_cooked_turn_names_the_turn(tmp_path, capsys):
    f = tmp_path / "p.cooked"
    f.write_text("Home0 (0, y1b2) g3-\nHome1 (1, y3b1) -g3\nbuild g1 at Home0\n"
                 "build g2 at Home1\n")
    assert main(["replay", "--json", str(f)]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["players"] == ["Home0", "Home1"] and not record["legal"]
    assert record["error"]["turn"] == 2 and record["error"]["text"] == "build g2 at Home1"


@pytest.mark.corpus
def test_every_cooked_game_replays_legal_under_strict(shared_dir, capsys):
    folder = shared_dir / "games" / "cooked"
    names = sorted(p.stem for p in folder.glob("*.cooked"))
    assert len(names) == 2417
    _check(_replay_strict(capsys, [folder / f"{n}.cooked" for n in names]), names)
