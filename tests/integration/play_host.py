"""``homeworlds play`` run by a test: the host in a thread of the test process, talking
to a simulated MCU (``PtyMcu``) as it would to the real one, stopped by ``close``."""

from __future__ import annotations

import argparse
import threading
from pathlib import Path

from homeworlds.commands import play
from homeworlds.notation import parse_sdg_action, read_sdg_file


def sdg_turn(text: str, player: str) -> tuple:
    """A turn in SDG notation, actions separated by ``;``, played by ``player``."""
    return tuple(parse_sdg_action(a.strip(), player=player) for a in text.split(";"))


def turns_in(record: Path) -> int:
    """How many turns the game record holds (0 before it exists)."""
    return len(read_sdg_file(record).turns) if record.exists() else 0


class PlayHost:
    def __init__(self, config, record, **options):
        """``options``: the other arguments of ``homeworlds play`` (``store``, ``listen``)."""
        self.stop = threading.Event()
        args = argparse.Namespace(config=str(config), record=str(record), **options)
        self.thread = threading.Thread(target=lambda: play.run(args, stop=self.stop))
        self.thread.start()

    def close(self):
        self.stop.set()
        self.thread.join(10)
