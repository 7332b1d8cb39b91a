"""Tables of an event whose remote game the hub arranges: each built as ``homeworlds play``
builds it (``build_table``) from a configuration with an ``[event]`` section only (its own
broker account and key from ``homeworlds hub-keys``), on a simulated table behind a pty;
lines typed on its terminal go through ``type``. When its player accepts the hub's
invitation the table asks to be built again (``restart``), which ``rebuild`` does as
``serve`` would."""

from __future__ import annotations

import queue
import shutil
import threading
from pathlib import Path

from homeworlds.runtime.config import load_config
from homeworlds.runtime.table import RunningTable, build_table
from homeworlds.sim import PtyMcu, VirtualTable, make_registry
from tests.remote.play_tables import LAYOUT


class HubTable:
    def __init__(self, directory: Path, name: str, event: str, broker_url: str, keys: Path,
                 token_seat: int, *, build: bool = True):
        directory.mkdir()
        self.directory, self.name = directory, name
        registry = make_registry(LAYOUT, 2)
        registry.save(directory / "registry.toml")
        self.table = VirtualTable(LAYOUT, registry, token_seat=token_seat)
        self.mcu = PtyMcu(self.table, scan_time=0)
        self.mcu.start()
        for suffix in ("key", "pw"):
            shutil.copy(keys / f"{name}.{suffix}", directory / f"{name}.{suffix}")
            (directory / f"{name}.{suffix}").chmod(0o600)
        (directory / "table.toml").write_text(
            '[table]\nregistry = "registry.toml"\nrules = "sdg"\n'
            'players = ["Here", "There"]\n'
            f'[serial]\nport = "{self.mcu.device_path}"\n'
            f'[store]\ntable = "{name}"\n'
            f'[event]\nbroker = "{broker_url}"\nevent = "{event}"\ntable = "{name}"\n'
            f'username = "{name}"\npassword_file = "{name}.pw"\nkey_file = "{name}.key"\n')
        self.commands: queue.Queue[str] = queue.Queue()
        self.running: RunningTable | None = None
        if build:
            self.start()

    def start(self) -> None:
        config = load_config(self.directory / "table.toml")
        self.running = build_table(config, None, self.directory / "game-record.raw",
                                   store_path=self.directory / "games.sqlite",
                                   commands=self.commands)
        self.stop_event = threading.Event()
        self.thread = threading.Thread(target=self.running.run, args=(self.stop_event,),
                                       daemon=True)
        self.thread.start()

    def type(self, line: str) -> None:
        self.commands.put(line)

    def stop(self) -> None:
        assert self.running is not None
        self.stop_event.set()
        self.thread.join(10)
        self.running.close()
        self.running = None

    def rebuild(self) -> None:
        """What ``serve`` does once the table asked to be built again."""
        assert self.running is not None and self.running.restart.is_set()
        self.thread.join(10)
        self.running.close()
        self.start()

    @property
    def session(self):
        assert self.running is not None
        return self.running.session

    @property
    def desk(self):
        assert self.running is not None
        return self.running.desk

    @property
    def game(self):
        assert self.running is not None and self.running.remote is not None
        return self.running.remote.game

    def in_step(self) -> bool:
        view = self.session.view
        if not view.known or not self.session.judged:
            return False
        sets = self.table.zone_sets()
        return all(view.zones[z] == frozenset(sets[k])
                   for k, z in enumerate(LAYOUT.all_zones))

    def close(self) -> None:
        if self.running is not None:
            self.stop()
        self.mcu.close()
