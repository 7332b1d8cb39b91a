"""The [event] section: strict, with errors naming file and key, never a password."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from homeworlds.event.settings import parse_broker_url, redact_url
from homeworlds.runtime.config import ConfigError, load_config
from tests.event.tables import key_file

BASE = '[table]\nrules = "looney"\nplayers = ["Ann", "Bob"]\n'


def _load(tmp_path, event: str):
    """The configuration with ``[event]`` ``event``, and the table's key file (issued by
    a hub) unless ``event`` names one."""
    if "key_file" not in event:
        named = re.search(r'^table = "([^"]*)"', event, re.M)
        table = named.group(1) if named else "standard-2p"
        if table == "#":
            table = "t0"
        event += f'key_file = "{Path(key_file(tmp_path, table)).name}"\n'
    path = tmp_path / "table.toml"
    path.write_text(BASE + "[event]\n" + event)
    return load_config(path)


def test_a_full_event_section_loads(tmp_path):
    (tmp_path / "pw").write_text("s3cret\n")
    (tmp_path / "ca.pem").write_text("-----BEGIN CERTIFICATE-----\n")
    config = _load(tmp_path, 'broker = "mqtts://broker.local"\nevent = "club-2026"\n'
                   'table = "t4"\nusername = "table4"\npassword_file = "pw"\n'
                   'ca_file = "ca.pem"\nkeepalive = 20\n')
    event = config.event
    assert (event.broker.host, event.broker.port, event.broker.tls) == ("broker.local", 8883,
                                                                        True)
    assert (event.event, event.table, event.keepalive) == ("club-2026", "t4", 20)
    assert event.credentials == ("table4", "s3cret")
    assert event.ca_file == tmp_path / "ca.pem"
    assert "s3cret" not in repr(event) and "s3cret" not in event.broker_text


def test_the_table_defaults_to_the_stores_name(tmp_path):
    config = _load(tmp_path, 'broker = "mqtt://10.0.0.2:1884"\nevent = "club"\n')
    assert (config.event.table, config.event.broker.port) == ("standard-2p", 1884)
    assert load_config_without_event(tmp_path).event is None


def load_config_without_event(tmp_path):
    path = tmp_path / "plain.toml"
    path.write_text(BASE)
    return load_config(path)


@pytest.mark.parametrize("text, key, words", [
    ('event = "club"\n', "event.broker", "missing"),
    ('broker = "http://x"\nevent = "club"\n', "event.broker", "mqtt://"),
    ('broker = "mqtt://"\nevent = "club"\n', "event.broker", "no host"),
    ('broker = "mqtt://x:99999"\nevent = "club"\n', "event.broker", "not a broker URL"),
    ('broker = "mqtt://x/path"\nevent = "club"\n', "event.broker", "no path"),
    ('broker = "mqtt://x"\n', "event.event", "missing"),
    ('broker = "mqtt://x"\nevent = "club/+"\n', "event.event", "topic level"),
    ('broker = "mqtt://x"\nevent = "club"\ntable = "#"\n', "event.table", "topic level"),
    ('broker = "mqtt://x"\nevent = "club"\npassword = "p"\n', "event.username", "needs a"),
    ('broker = "mqtt://x"\nevent = "club"\nusername = "u"\npassword = "p"\n'
     'password_file = "f"\n', "event.password_file", "not both"),
    ('broker = "mqtt://x"\nevent = "club"\nusername = "u"\npassword_file = "nope"\n',
     "event.password_file", "nope"),
    ('broker = "mqtt://x"\nevent = "club"\nca_file = "ca.pem"\n', "event.ca_file", "mqtts"),
    ('broker = "mqtts://x"\nevent = "club"\nca_file = "ca.pem"\n', "event.ca_file",
     "no such file"),
    ('broker = "mqtt://x"\nevent = "club"\nkeepalive = 1\n', "event.keepalive", "range"),
    ('broker = "mqtt://x"\nevent = "club"\nkeepalive = "10"\n', "event.keepalive",
     "wrong type"),
    ('broker = "mqtt://x"\nevent = "club"\nhost = "x"\n', "event.host", "unknown key"),
    ('broker = "mqtt://x"\nevent = "club"\nkey_file = "nope.key"\n', "event.key_file",
     "nope.key: No such file"),
    ('broker = "mqtt://x"\nevent = "club"\nkey_file = "table.toml"\n', "event.key_file",
     "not a key file"),
])
def test_bad_event_settings_name_file_and_key(tmp_path, text, key, words):
    with pytest.raises(ConfigError) as info:
        _load(tmp_path, text)
    message = str(info.value)
    assert str(tmp_path / "table.toml") in message and key in message and words in message


def test_a_password_in_the_url_is_never_shown(tmp_path):
    with pytest.raises(ConfigError) as info:
        _load(tmp_path, 'broker = "mqtt://ann:hunter2@x:99999"\nevent = "club"\n')
    assert "hunter2" not in str(info.value) and "ann:***@" in str(info.value)
    address = parse_broker_url("mqtts://ann:hunter2@broker:8884")
    assert (address.username, address.password) == ("ann", "hunter2")
    assert "hunter2" not in address.text() and "hunter2" not in repr(address)
    assert redact_url("mqtt://a:b@c:1") == "mqtt://a:***@c:1"


def test_a_missing_mosquitto_fails_under_ci(monkeypatch):
    from tests.event import broker

    monkeypatch.setenv("CI", "true")
    monkeypatch.setattr(broker, "SEARCH", ())
    with pytest.raises(pytest.fail.Exception, match="CI is set"):
        broker.mosquitto_binary("mosquitto-that-is-not-there")
    monkeypatch.setenv("CI", "")
    with pytest.raises(pytest.skip.Exception, match="make mosquitto-bin"):
        broker.mosquitto_binary("mosquitto-that-is-not-there")


def test_play_goes_on_without_the_mqtt_library(tmp_path, monkeypatch, capsys):
    from homeworlds.event import mqtt
    from homeworlds.runtime import table as play

    def missing():
        raise mqtt.MqttUnavailable("the event features need the paho-mqtt library: "
                                   f"{mqtt.INSTALL_HINT}")
    monkeypatch.setattr(mqtt, "paho", missing)
    config = _load(tmp_path, 'broker = "mqtt://127.0.0.1:1"\nevent = "club"\n')
    assert play.start_publisher(config, tmp_path / "games.sqlite", "t1") is None
    err = capsys.readouterr().err
    assert "not publishing to the event" in err and "homeworlds-table[event]" in err


def test_a_table_needs_its_own_key(tmp_path):
    (tmp_path / "table.toml").write_text(BASE + '[event]\nbroker = "mqtt://x"\nevent = "club"\n'
                                         'table = "t4"\n')
    with pytest.raises(ConfigError, match=r"event.key_file: missing: .*hub-keys issue t4"):
        load_config(tmp_path / "table.toml")
    name = Path(key_file(tmp_path, "t5")).name
    with pytest.raises(ConfigError, match="is table t5's key, not table t4's"):
        _load(tmp_path, f'broker = "mqtt://x"\nevent = "club"\ntable = "t4"\nkey_file = "{name}"\n')
    secret = (tmp_path / name).read_text()
    assert "secret" in secret
    with pytest.raises(ConfigError) as info:
        _load(tmp_path, 'broker = "mqtt://x"\nevent = "club"\ntable = "t5"\nkey_file = "t5.key"\n'
              'keepalive = 1\n')
    assert json.loads(secret)["secret"] not in str(info.value)
