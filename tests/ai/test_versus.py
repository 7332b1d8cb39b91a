"""``homeworlds versus``: a terminal game against the computer, driven by piped input."""

from __future__ import annotations

import argparse
import io
import sys

from homeworlds.commands import versus


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    versus.register(parser.add_subparsers())
    return parser.parse_args(["versus", *argv])


def computer_turns(out: str) -> list[str]:
    """The computer's turns as printed (a line of its own, not a fleet in the position)."""
    return [line for line in out.splitlines() if line.startswith("Computer: ")]


def play(argv: list[str], typed: str) -> tuple[int, str]:
    out = io.StringIO()
    status = versus.run(parse(argv), stdin=io.StringIO(typed), stdout=out)
    return status, out.getvalue()


def test_a_session_through_the_real_stdin(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("Homeworld Y1 B2 G3\nBuild G1 Human\nquit\n"))
    status = versus.run(parse(["--human-first", "--seed", "1"]))
    out = capsys.readouterr().out
    assert status == 0
    assert "Computer: Homeworld" in out
    # The human's build was accepted: the computer answered it.
    assert len(computer_turns(out)) == 2
    assert "home of Human" in out and "home of Computer" in out
    assert out.rstrip().endswith("Game abandoned.")


def test_bad_input_is_explained_and_asked_again():
    typed = "\n".join([
        "hello",                          # not an action
        "Homeworld Y1 B2",                # too few words
        "Homeworld Y1 B2 G3",
        "Build R1 Human",                 # no red ship there
        "Build G1 Human; Build G1 Human",  # two free actions
        "Build G1 Human;",                # empty action after ';'
        "Move G3 Human Nowhere",          # no such system
        "quit",
    ]) + "\n"
    status, out = play(["--human-first", "--seed", "2"], typed)
    assert status == 0
    assert "Not accepted: unknown action 'hello'" in out
    assert "homeworld needs 3 words" in out
    assert "you need a red ship of your own at Human" in out
    assert "the turn's one free action was already taken" in out
    assert "an empty action between ';'" in out
    assert "there is no system named 'Nowhere'" in out
    assert out.count("Not accepted:") == 6
    assert len(computer_turns(out)) == 1  # only its homeworld: no bad turn was played


def test_the_computer_sets_up_first_by_default_and_end_of_input_quits():
    status, out = play(["--seed", "3"], "")
    assert status == 0
    first_turn = out.index("Computer: Homeworld")
    assert first_turn < out.index("Human to play>")
    assert "Game abandoned." in out


def test_help_show_and_hint():
    status, out = play(["--human-first", "--seed", "4"],
                       "help\nHomeworld Y1 B2 G3\nshow\nhint\nquit\n")
    assert status == 0
    assert "Discover G3 Human B3 Alpha" in out  # the help text, with the player's home name
    assert "The computer would play: " in out
    hint = out.split("The computer would play: ")[1].splitlines()[0]
    assert "Human" in hint  # a turn for the human's side, written in SDG notation


def test_a_game_played_to_its_end():
    # Leaving home with the only ship loses at once under the looney rules.
    status, out = play(["--human-first", "--seed", "5"],
                       "Homeworld Y1 B2 G3\nDiscover G3 Human R3 Away\n")
    assert status == 0
    assert "The computer wins." in out
    assert "Game abandoned." not in out


def test_alternating_setup_by_single_picks():
    typed = "star Y1\nstar B2\nship G3\nquit\n"
    status, out = play(["--rules", "alternating-setup", "--human-first", "--seed", "6"], typed)
    assert status == 0
    turns = computer_turns(out)
    assert [t.split()[1] for t in turns] == ["star", "star", "ship"]
    assert "Not accepted" not in out
    assert "home of Human" in out


def test_a_bad_name_is_refused(capsys):
    assert versus.run(parse(["--name", "Computer"]), stdin=io.StringIO(""),
                      stdout=io.StringIO()) == 2
    assert "--name must be one word" in capsys.readouterr().err


def test_good_evil_deals_secret_alignments_and_reveals_them_at_the_end():
    """002 (Good and Evil): "Mix up the cards and give one to each player." and "You may look
    at your own alignment card" — the human is told theirs; both are shown when it ends."""
    from homeworlds.rules import deal_alignments

    status, out = play(["--rules", "good-evil", "--human-first", "--seed", "3"],
                       "Homeworld Y1 B2 G3\nquit\n")
    assert status == 0
    human, computer = deal_alignments(2, 3)
    intro, rest = out.split("Type 'help'", 1)
    assert f"Your secret alignment: {human.capitalize()}" in intro
    assert "Alignments:" not in intro
    assert rest.rstrip().endswith(f"Alignments: Human {human.capitalize()}, "
                                  f"Computer {computer.capitalize()}")
    assert {human, computer} == {"good", "evil"}
