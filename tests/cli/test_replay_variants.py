"""`homeworlds replay` naming a file's variant and alignments (constructed transcripts)."""

from __future__ import annotations

import json

import pytest

from homeworlds.cli import main
from homeworlds.notation.sdg import read_sdg, write_sdg
from homeworlds.rules import Catastrophe, Color, SetupPick

ALTERNATING = """Homeworlds Online
Participants: Alice (N), Bob (S)

1) Alice: Star Y1

2) Bob: Star B2

3) Alice: Star B3

4) Bob: Star R1

5) Alice: Ship G3

6) Bob: Ship G3

7) Alice: Build G1 Alice

8) Bob: Build G1 Bob

9) Alice: Build G1 Alice

10) Bob: Build G2 Bob

11) Alice: Build G2 Alice
Catastrophe Alice Green by Bob
"""

GOOD_EVIL = """Homeworlds Online
Participants: Alice (N), Bob (E), Carol (S)

1) Alice: Homeworld Y1 G2 R3

2) Bob: Homeworld G3 B3 G1

3) Carol: Homeworld Y3 B3 B1

4) Alice: Build R1 Alice

5) Bob: Pass

6) Carol: Pass

7) Alice: Move R3 Alice Carol

8) Bob: Pass

9) Carol: Pass

10) Alice: Attack B1 Carol

11) Bob: Pass

12) Alice: Build R1 Alice

13) Bob: Pass

14) Alice: Move R1 Alice Bob

15) Bob: Pass

16) Alice: Attack G1 Bob
"""


def _replay(tmp_path, capsys, text: str, *options: str) -> tuple[int, dict | None, str]:
    f = tmp_path / "game.raw"
    f.write_text(text)
    status = main(["replay", "--json", *options, str(f)])
    captured = capsys.readouterr()
    return status, json.loads(captured.out) if captured.out.strip() else None, captured.err


def test_alternating_setup_transcript_replays_with_rules_named(tmp_path, capsys):
    """003 (Initial Phase (Setup)): "Players alternate choosing pieces" to create their home
    systems; (Overpopulation): "This is not a turn action and can be declared by either player
    at any time when the condition is met." Bob declares the overpopulation in Alice's turn."""
    status, record, _ = _replay(tmp_path, capsys, ALTERNATING, "--rules", "alternating-setup")
    assert status == 0
    assert record["legal"], record["error"]
    assert record["rules"] == "alternating-setup"
    assert (record["board_end"], record["end_turn"], record["board_winner"]) == (
        "opponent-eliminated", 11, 1)


def test_alternating_setup_transcript_names_its_rules_in_a_header(tmp_path, capsys):
    text = ALTERNATING.replace("Participants:", "Rules: alternating-setup\nParticipants:")
    status, record, _ = _replay(tmp_path, capsys, text)
    assert status == 0 and record["legal"] and record["board_winner"] == 1
    # Under the SDG rules the single picks are refused at turn 1, naming why.
    status, record, _ = _replay(tmp_path, capsys, ALTERNATING, "--rules", "sdg")
    assert record["error"]["turn"] == 1
    assert "homeworld" in record["error"]["reason"]


def test_alternating_setup_refuses_a_pass_in_a_transcript(tmp_path, capsys):
    """003 (Normal Turns): "the active player must choose exactly one of the following"."""
    text = ALTERNATING.replace("11) Alice: Build G2 Alice\nCatastrophe Alice Green by Bob\n",
                               "11) Alice: Pass\n")
    status, record, _ = _replay(tmp_path, capsys, text, "--rules", "alternating-setup")
    assert status == 0 and record["error"]["turn"] == 11
    assert "do not allow passing" in record["error"]["reason"]


def test_good_evil_three_players_replays_with_alignments(tmp_path, capsys):
    """002 (Elimination and Winning): "If there are no Evil players left, the game ends
    immediately, and al of the remaining Good players share the win." Carol (Good) was
    eliminated first; only Alice wins."""
    status, record, _ = _replay(tmp_path, capsys, GOOD_EVIL, "--rules", "good-evil",
                                "--alignments", "good,evil,good")
    assert status == 0 and record["legal"], record["error"]
    assert record["alignments"] == "good,evil,good"
    assert record["board_winners"] == [0] and record["end_turn"] == 16
    header = GOOD_EVIL.replace("Participants: Alice (N), Bob (E), Carol (S)",
                               "Rules: good-evil\nParticipants: Alice (N), Bob (E), Carol (S)\n"
                               "Alignments: Alice (good), Bob (evil), Carol (good)")
    status, again, _ = _replay(tmp_path, capsys, header)
    assert status == 0 and again == {**record, "file": "game.raw"}


def test_good_evil_without_alignments_is_refused_by_replay(tmp_path, capsys):
    status, record, err = _replay(tmp_path, capsys, GOOD_EVIL, "--rules", "good-evil")
    assert status == 2 and record is None
    assert "game.raw" in err and "need each player's secret alignment" in err
    status, _, err = _replay(tmp_path, capsys, GOOD_EVIL, "--rules", "good-evil",
                             "--alignments", "good,evil")
    assert status == 2 and "2 alignments for 3 players" in err
    status, _, err = _replay(tmp_path, capsys, GOOD_EVIL, "--rules", "sdg")
    assert status == 2 and "the sdg rules are for 2-2 players; this game has 3" in err


def test_three_players_without_rules_still_follow_their_variants_line(tmp_path, capsys):
    status, record, _ = _replay(tmp_path, capsys, GOOD_EVIL)
    assert status == 0 and record["rules"] == "last-standing" and record["legal"]
    assert record["alignments"] is None and record["board_winners"] == [0]


@pytest.mark.parametrize("text", [ALTERNATING])
def test_setup_picks_and_declared_catastrophes_round_trip(text):
    game = read_sdg(text)
    assert game.turns[0].actions == (SetupPick(game.turns[0].actions[0].piece, "star",
                                                "Alice"),)
    assert game.turns[10].actions[1] == Catastrophe("Alice", Color.GREEN, declarer=1)
    again = read_sdg(write_sdg(game))
    assert [t.actions for t in again.turns] == [t.actions for t in game.turns]
    assert "Catastrophe Alice Green by Bob" in write_sdg(game)


def test_text_output_names_every_winner_and_the_alignments(tmp_path, capsys):
    f = tmp_path / "game.raw"
    f.write_text(GOOD_EVIL)
    assert main(["replay", "--rules", "good-evil", "--alignments", "good,evil,good",
                 str(f)]) == 0
    assert capsys.readouterr().out.strip() == (
        "game.raw: Alice vs Bob vs Carol: legal, 16 turns, opponent-eliminated at turn 16, "
        "won by Alice (Alice good, Bob evil, Carol good)")
