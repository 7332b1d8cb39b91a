"""Tables of an event whose remote game the hub arranges: each built as ``homeworlds play``
builds it (``build_table``) from a configuration with an ``[event]`` section only (its own
broker account and key from ``homeworlds hub-keys``), on a simulated table behind a pty;
lines typed on its terminal go through ``type``. When its player accepts the hub's
invitation the table asks to be built again (``restart``), which ``rebuild`` does as
``serve`` would."""

from __future__ import annotations

import queue
import shutil
from pathlib import Path

from tests.remote.play_tables import SimulatedPlay


class HubTable(SimulatedPlay):
    def __init__(self, directory: Path, name: str, event: str, broker_url: str, keys: Path,
                 token_seat: int, *, build: bool = True):
        directory.mkdir()
        for suffix in ("key", "pw"):
            shutil.copy(keys / f"{name}.{suffix}", directory / f"{name}.{suffix}")
            (directory / f"{name}.{suffix}").chmod(0o600)
        super().__init__(
            directory, name, ("Here", "There"), token_seat,
            f'[event]\nbroker = "{broker_url}"\nevent = "{event}"\ntable = "{name}"\n'
            f'username = "{name}"\npassword_file = "{name}.pw"\nkey_file = "{name}.key"\n',
            queue.Queue())
        if build:
            self.start()

    def type(self, line: str) -> None:
        assert self.commands is not None
        self.commands.put(line)

    @property
    def desk(self):
        assert self.running is not None
        return self.running.desk

    def rebuild(self) -> None:
        """What ``serve`` does once the table asked to be built again."""
        assert self.running is not None and self.running.restart.is_set()
        self.thread.join(10)
        self.running.close()
        self.start()
