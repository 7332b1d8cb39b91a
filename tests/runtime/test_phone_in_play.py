"""``[phone]`` in a table's configuration: ``build_table`` makes the seat a phone's, serves
its pages on a port of its own, shows the link and the code, and stops it on close."""

from __future__ import annotations

import re
import socket

import pytest

pytest.importorskip("starlette")

from homeworlds.runtime.config import ConfigError, config_from_mapping, load_config  # noqa: E402
from homeworlds.runtime.table import build_table  # noqa: E402
from homeworlds.sim import PtyMcu, VirtualTable, make_registry  # noqa: E402
from homeworlds.table.layout import builtin_layout  # noqa: E402
from tests.web.server import free_port  # noqa: E402

LAYOUT = builtin_layout("standard-2p")
BASE = {"table": {"players": ["Ann", "Bob"], "rules": "looney"}}


def test_a_configured_phone_seat_is_served_and_announced(tmp_path, capsys):
    from urllib.request import urlopen

    registry = make_registry(LAYOUT, 2)
    registry.save(tmp_path / "registry.toml")
    port = free_port()
    with PtyMcu(VirtualTable(LAYOUT, registry), scan_time=0) as mcu:
        path = tmp_path / "table.toml"
        path.write_text(
            '[table]\nregistry = "registry.toml"\nrules = "looney"\nplayers = ["Ann", "Bob"]\n'
            f'[serial]\nport = "{mcu.device_path}"\n[phone]\nseat = 1\nport = {port}\n')
        running = build_table(load_config(path), None, tmp_path / "game.raw",
                              store_path=tmp_path / "games.sqlite")
        try:
            said = capsys.readouterr().out
            link = re.search(r"phone seat Bob: open (http://\S+/phone\?code=(\w+))", said)
            assert link, said
            assert f"type the code {link.group(2)}" in said
            assert 1 in running.session.computer.seats, "the phone's seat waits for the phone"
            with urlopen(link.group(1), timeout=10) as answer:
                text = answer.read().decode()
                assert answer.status == 200 and 'id="claim"' in text and "Play Bob" in text
        finally:
            running.close()
        assert running.phone.seat.closed
        with socket.socket() as probe:
            assert probe.connect_ex(("127.0.0.1", port)) != 0, "the phone's port is closed"


@pytest.mark.parametrize("phone, key, reason", [
    ({}, "phone.seat", "missing"),
    ({"seat": 2}, "phone.seat", "no seat 2"),
    ({"seat": 1, "listen": "example.org"}, "phone.listen", "not an IP address"),
    ({"seat": 1, "port": 70000}, "phone.port", "out of range"),
    ({"seat": 1, "port": 8080}, "phone.port", "the display's port"),
    ({"seat": 1, "colour": "red"}, "phone.colour", "unknown key"),
])
def test_a_wrong_phone_section_names_its_key(tmp_path, phone, key, reason):
    data = {**BASE, "display": {"enabled": True, "port": 8080}, "phone": phone}
    with pytest.raises(ConfigError) as error:
        config_from_mapping(data, "table.toml", tmp_path)
    assert error.value.key == key and reason in error.value.reason


def test_the_phone_cannot_play_the_computers_seat(tmp_path):
    data = {**BASE, "seats": {"1": {"computer": True}}, "phone": {"seat": 1}}
    with pytest.raises(ConfigError, match="seat 1 is the computer's"):
        config_from_mapping(data, "table.toml", tmp_path)
    from homeworlds.remote.invitation import Invitation

    (tmp_path / "remote.code").write_text(Invitation.new().code + "\n")
    (tmp_path / "remote.code").chmod(0o600)
    remote = {**BASE, "phone": {"seat": 1}, "remote": {
        "role": "host", "broker": "mqtt://127.0.0.1:1883", "code_file": "remote.code"}}
    with pytest.raises(ConfigError, match="a remote game .* has no phone seat"):
        config_from_mapping(remote, "table.toml", tmp_path)
    config = config_from_mapping({**BASE, "phone": {"seat": 0, "listen": "0.0.0.0"}},
                                 "table.toml", tmp_path)
    assert (config.phone.seat, config.phone.listen, config.phone.port) == (0, "0.0.0.0", 8090)


def test_play_phone_gives_a_seat_to_a_phone_without_editing_the_configuration(tmp_path):
    from homeworlds.commands.play import _with_phone

    config = config_from_mapping({**BASE, "display": {"enabled": True}}, "table.toml",
                                 tmp_path)
    assert config.phone is None
    phone = _with_phone(config, "1").phone
    assert (phone.seat, phone.listen, phone.port) == (1, "127.0.0.1", 8090)
    phone = _with_phone(config, "0@0.0.0.0:8091").phone
    assert (phone.seat, phone.listen, phone.port) == (0, "0.0.0.0", 8091)
    configured = config_from_mapping({**BASE, "phone": {"seat": 1, "port": 8095}},
                                     "table.toml", tmp_path)
    assert _with_phone(configured, "0").phone.port == 8095  # the rest from [phone]


@pytest.mark.parametrize("option, says", [
    ("x", "'x' is not a seat: give 0 or 1"),
    ("2", "no seat 2"),
    ("1@example.org", "not an IP address"),
    ("1@127.0.0.1:99999", "the port must be a number"),
    ("1@127.0.0.1:8080", "the display's port"),
])
def test_a_wrong_play_phone_option_is_refused_with_the_reason(tmp_path, option, says, capsys):
    from homeworlds.cli import main

    registry = make_registry(LAYOUT, 2)
    registry.save(tmp_path / "registry.toml")
    path = tmp_path / "table.toml"
    path.write_text('[table]\nregistry = "registry.toml"\nrules = "looney"\n'
                    'players = ["Ann", "Bob"]\n[serial]\nport = "/dev/null"\n'
                    '[pixels]\nsink = "memory"\n[display]\nenabled = true\n')
    assert main(["play", "--config", str(path), "--phone", option]) == 2
    err = capsys.readouterr().err
    assert "homeworlds play: --phone: " in err and says in err, err


def test_a_store_that_cannot_keep_the_claim_warns_and_the_table_plays(tmp_path, capsys,
                                                                      monkeypatch):
    from homeworlds.store import StoreUnavailable
    from homeworlds.store.phone_claims import PhoneClaims

    def broken(self, seat):
        raise StoreUnavailable(str(self.path), "disk I/O error")

    monkeypatch.setattr(PhoneClaims, "load", broken)
    registry = make_registry(LAYOUT, 2)
    registry.save(tmp_path / "registry.toml")
    with PtyMcu(VirtualTable(LAYOUT, registry), scan_time=0) as mcu:
        path = tmp_path / "table.toml"
        path.write_text(
            '[table]\nregistry = "registry.toml"\nrules = "looney"\nplayers = ["Ann", "Bob"]\n'
            f'[serial]\nport = "{mcu.device_path}"\n[phone]\nseat = 1\nport = {free_port()}\n')
        running = build_table(load_config(path), None, tmp_path / "game.raw",
                              store_path=tmp_path / "games.sqlite")
        try:
            said = capsys.readouterr()
            assert "warning: [phone]: the phone's claim cannot be kept in the store" in said.err
            assert "disk I/O error" in said.err
            assert "phone seat Bob: open http://" in said.out
            assert running.phone.seat.holds(running.phone.seat.claim(running.phone.seat.code))
        finally:
            running.close()


def test_the_phones_first_page_shows_the_game_resumed_from_the_store(tmp_path, capsys):
    """``play`` restarted mid-game: the phone's pages serve the resumed position at once,
    before the table loop's first tick (a phone that reloads during the restart)."""
    from homeworlds.store import GameStore
    from tests.store.helpers import play_opening

    registry = make_registry(LAYOUT, 2)
    registry.save(tmp_path / "registry.toml")
    with PtyMcu(VirtualTable(LAYOUT, registry), scan_time=0) as mcu:
        path = tmp_path / "table.toml"
        path.write_text(
            '[table]\nregistry = "registry.toml"\nrules = "looney"\nplayers = ["Ann", "Bob"]\n'
            f'[serial]\nport = "{mcu.device_path}"\n[store]\ntable = "club-1"\n'
            f'[phone]\nseat = 1\nport = {free_port()}\n')
        store = GameStore.open(tmp_path / "games.sqlite")
        play_opening(store, "g1", turns=3, table="club-1")
        store.close()
        running = build_table(load_config(path), None, tmp_path / "game.raw",
                              store_path=tmp_path / "games.sqlite")
        try:
            assert "resuming game" in capsys.readouterr().out
            view = running.phone.seat.view()
            assert view.number == 4 and running.phone.seat.my_turn(view) is None
        finally:
            running.close()
