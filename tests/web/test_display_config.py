"""The ``[display]`` section of the table configuration, read strictly."""

from __future__ import annotations

import pytest

from homeworlds.runtime.config import ConfigError, config_from_mapping


def _display(**keys):
    return config_from_mapping({"display": keys}, "table.toml").display


def test_the_defaults_listen_on_this_machine_only_with_a_generated_token():
    display = config_from_mapping({}, "table.toml").display
    assert (display.enabled, display.listen, display.port, display.admin_token) == (
        False, "127.0.0.1", 8080, None)


def test_a_full_section_is_read():
    display = _display(enabled=True, listen="0.0.0.0", port=9000,
                       admin_token="club-7f3a9c2e61b54d08")
    assert (display.enabled, display.listen, display.port, display.admin_token) == (
        True, "0.0.0.0", 9000, "club-7f3a9c2e61b54d08")


@pytest.mark.parametrize("keys, key, says", [
    ({"listen": "example.org"}, "display.listen", "not an IP address"),
    ({"listen": 8080}, "display.listen", "wrong type"),
    ({"port": 0}, "display.port", "out of range"),
    ({"port": 70000}, "display.port", "out of range"),
    ({"port": "80"}, "display.port", "wrong type"),
    ({"enabled": "yes"}, "display.enabled", "wrong type"),
    ({"admin_token": "short"}, "display.admin_token", "too short"),
    ({"admin_token": "has spaces in it, sixteen+"}, "display.admin_token", "only letters"),
    ({"admin_token": "é" * 20}, "display.admin_token", "only letters"),
    ({"adminToken": "x" * 20}, "display.adminToken", "unknown key"),
])
def test_a_bad_value_names_the_file_and_the_key(keys, key, says):
    with pytest.raises(ConfigError) as caught:
        _display(**keys)
    assert str(caught.value).startswith(f"table.toml: {key}: ")
    assert says in str(caught.value)
