"""``homeworlds versus``: a terminal game against the computer, driven by piped input."""

from __future__ import annotations

import argparse
import io
import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from homeworlds.ai.players import LEVELS
from homeworlds.commands import versus
from homeworlds.display.thinking import SPINNER, think


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


def test_a_seventh_setup_pick_is_not_accepted():
    """003 (Initial Phase (Setup)): "The setup phase consists of 6 alternating choices, with
    each player making 3 selections total (2 stars + 1 ship)." A seventh pick is refused and
    the human is asked again."""
    typed = "star Y1\nstar B2\nship G3\nship R3\nquit\n"
    status, out = play(["--rules", "alternating-setup", "--human-first", "--seed", "6"], typed)
    assert status == 0
    assert "Not accepted: pick ship r3 for Human: setup is over: the setup phase consists " \
        "of 6 alternating choices" in out
    assert len(computer_turns(out)) == 3


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


# ---- thinking progress ------------------------------------------------------------------

class _Terminal(io.StringIO):
    """What ``versus`` writes to, claiming to be a terminal."""

    def isatty(self) -> bool:
        return True


class _SlowSearch:
    """A player that thinks in steps and reports depth and nodes after each one."""

    def __init__(self, steps: int = 4, pause: float = 0.12):
        self.steps, self.pause = steps, pause

    def choose_turn(self, state, progress=None):
        from types import SimpleNamespace
        for depth in range(1, self.steps + 1):
            time.sleep(self.pause)
            if progress is not None:
                progress(SimpleNamespace(depth=depth, nodes=1000 * depth))
        return "the turn"


def test_thinking_on_a_terminal_is_one_line_redrawn_in_place_with_depth_and_nodes():
    out = _Terminal()
    assert think(_SlowSearch().choose_turn, None, out, tty=True, interval=0.02) == "the turn"
    text = out.getvalue()
    frames = text.split("\r\x1b[K")[1:]
    assert len(frames) >= 5  # redrawn while it thought, then the final line
    assert text.count("\n") == 1 and text.endswith("\n")
    assert any("depth 2, 2,000 nodes" in f for f in frames[:-1])
    assert frames[-1].startswith("Computer thought for ")
    assert frames[-1].rstrip().endswith("(depth 4, 4,000 nodes)")
    assert {f.split(" thinking ")[1][0] for f in frames[:-1]} <= set(SPINNER)


def test_thinking_elsewhere_is_a_single_plain_line():
    out = io.StringIO()
    assert think(_SlowSearch().choose_turn, None, out, tty=False, interval=0.02) == "the turn"
    text = out.getvalue()
    assert "\r" not in text and "\x1b" not in text
    assert text.count("\n") == 1
    assert text.startswith("Computer is thinking... ")
    assert text.rstrip().endswith("s, depth 4, 4,000 nodes")


def test_a_player_without_progress_still_shows_the_elapsed_time():
    def choose_turn(state):  # no progress keyword: it must not be passed one
        time.sleep(0.1)
        return "plain"

    out = _Terminal()
    assert think(choose_turn, None, out, tty=True, interval=0.02) == "plain"
    final = out.getvalue().split("\r\x1b[K")[-1]
    assert final.startswith("Computer thought for ") and "depth" not in final
    assert float(final.split("for ")[1].split(" s")[0]) >= 0.1


def test_an_error_while_thinking_reaches_the_caller():
    def choose_turn(state, progress=None):
        raise ValueError("no legal turn")

    out = io.StringIO()
    with pytest.raises(ValueError, match="no legal turn"):
        think(choose_turn, None, out, tty=False)


@pytest.mark.parametrize("level", sorted(LEVELS))
def test_every_level_plays_and_shows_its_thinking(level):
    status, out = play(["--human-first", "--seed", "7", "--level", str(level)],
                       "Homeworld Y1 B2 G3\nBuild G1 Human\nquit\n")
    assert status == 0
    assert f"level {level}" in out
    assert len(computer_turns(out)) == 2
    thinking = [line for line in out.splitlines() if line.startswith("Computer is thinking")]
    assert len(thinking) == 2 and all(line.endswith(" s") or "nodes" in line
                                      for line in thinking)


def test_the_level_choices_come_from_the_levels_table(monkeypatch, capsys):
    with pytest.raises(SystemExit):
        parse(["--level", str(max(LEVELS) + 1)])
    assert "invalid choice" in capsys.readouterr().err


def _read_until(fd: int, wanted: str, timeout: float = 60.0) -> str:
    seen = b""
    deadline = time.monotonic() + timeout
    while wanted.encode() not in seen:
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"{wanted!r} never came; the terminal showed:\n"
                                 f"{seen.decode(errors='replace')}")
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:  # the program exited and closed the terminal
                break
            if not chunk:
                break
            seen += chunk
    return seen.decode(errors="replace")


def test_on_a_real_terminal_it_shows_thinking_and_a_hint(tmp_path):
    """The whole program on a pty, as a person at a terminal runs it."""
    master, slave = os.openpty()
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "host")}
    process = subprocess.Popen(
        [sys.executable, "-m", "homeworlds", "versus", "--human-first", "--seed", "8",
         "--no-color"], stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True)
    os.close(slave)
    try:
        screen = _read_until(master, "Human to play> ")
        os.write(master, b"Homeworld Y1 B2 G3\n")
        screen += _read_until(master, "Human to play> ")
        assert "Computer thought for " in screen  # the computer's setup
        assert "Computer is thinking..." not in screen  # the plain form is for pipes only
        os.write(master, b"hint\n")
        screen = _read_until(master, "Human to play> ")
        assert "Hint: the computer thought for " in screen
        hint = screen.split("The computer would play: ")[1].splitlines()[0]
        assert "Human" in hint
        os.write(master, b"quit\n")
        screen = _read_until(master, "Game abandoned.")
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(master)
