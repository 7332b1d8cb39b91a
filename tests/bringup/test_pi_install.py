"""The Raspberry Pi install files are well-formed; the installer refuses to run off a Pi."""

from __future__ import annotations

import configparser
import re
import subprocess
from pathlib import Path

import pytest

from homeworlds.bringup.system import STABLE_PORT

PI = Path(__file__).resolve().parents[2] / "hardware" / "pi"
UNIT = PI / "homeworlds-table.service"
RULES = PI / "99-homeworlds-table.rules"
INSTALL = PI / "install.sh"

# udev keys this rule may use: match keys (==) and assignment keys (=, +=).
MATCH_KEYS = {"SUBSYSTEM", "KERNEL", "ACTION"}
MATCH_ENV = {"ID_VENDOR_ID", "ID_MODEL_ID", "ID_USB_INTERFACE_NUM"}
ASSIGN_KEYS = {"SYMLINK": "+=", "GROUP": "=", "MODE": "=", "TAG": "+="}
TOKEN = re.compile(r'\s*([A-Z_]+(?:\{[A-Za-z_]+\})?)\s*(==|!=|\+=|=)\s*"([^"]*)"\s*(?:,|$)')

# CircuitPython USB IDs (ports/raspberrypi/boards/*/mpconfigboard.mk).
BOARDS = {("239a", "80f4"): "Raspberry Pi Pico", ("2e8a", "000b"): "Raspberry Pi Pico 2"}


def parse_rule(line: str) -> list[tuple[str, str, str]]:
    tokens, position = [], 0
    while position < len(line):
        match = TOKEN.match(line, position)
        assert match, f"cannot parse udev rule at {line[position:]!r}"
        tokens.append(match.groups())
        position = match.end()
    return tokens


def rules() -> list[list[tuple[str, str, str]]]:
    lines = [line for line in RULES.read_text().splitlines()
             if line.strip() and not line.lstrip().startswith("#")]
    return [parse_rule(line) for line in lines]


def test_every_udev_rule_is_well_formed():
    assert len(rules()) == len(BOARDS)
    for rule in rules():
        for key, op, _value in rule:
            env = re.fullmatch(r"ENV\{(\w+)\}", key)
            if env:
                assert env.group(1) in MATCH_ENV and op == "==", (key, op)
            elif key in MATCH_KEYS:
                assert op == "==", (key, op)
            else:
                assert ASSIGN_KEYS.get(key) == op, f"{key}{op} is not an assignment this rule makes"
        keys = {key for key, _, _ in rule}
        assert not any(key.startswith("ATTRS") for key in keys)  # see the rule's comment


def test_the_rules_link_the_data_channel_of_each_board():
    seen = set()
    for rule in rules():
        values = {key: value for key, _, value in rule}
        assert values["SUBSYSTEM"] == "tty"
        assert re.fullmatch(r"[0-9a-f]{4}", values["ENV{ID_VENDOR_ID}"])
        assert re.fullmatch(r"[0-9a-f]{4}", values["ENV{ID_MODEL_ID}"])
        seen.add((values["ENV{ID_VENDOR_ID}"], values["ENV{ID_MODEL_ID}"]))
        # usb_cdc.data is CircuitPython's second CDC function: interfaces 2 and 3.
        assert values["ENV{ID_USB_INTERFACE_NUM}"] == "02"
        assert "/dev/" + values["SYMLINK"] == STABLE_PORT
        assert values["GROUP"] == "dialout" and values["MODE"] == "0660"
        assert values["TAG"] == "systemd"
    assert seen == set(BOARDS)


def test_the_systemd_unit_is_well_formed():
    text = UNIT.read_text()
    parser = configparser.ConfigParser(strict=True, interpolation=None,
                                       comment_prefixes=("#", ";"), delimiters=("=",))
    parser.optionxform = str  # systemd keys are case-sensitive
    parser.read_string(text)
    assert parser.sections() == ["Unit", "Service", "Install"]
    service = parser["Service"]
    exec_start = service["ExecStart"].split()
    assert exec_start[0] == "@REPO@/.venv/bin/homeworlds" and exec_start[1] == "play"
    assert exec_start[exec_start.index("--config") + 1] == "@CONFIG@"
    assert service["Restart"] == "on-failure" and service["KillSignal"] == "SIGTERM"
    # Only groups that exist: install.sh fills them in (existing-groups.sh).
    assert service["SupplementaryGroups"] == "@GROUPS@"
    assert parser["Install"]["WantedBy"] == "multi-user.target"
    # Every placeholder is one the installer fills in.
    placeholders = set(re.findall(r"@([A-Z_]+)@", text))
    filled = set(re.findall(r'-e "s\|@([A-Z_]+)@\|', INSTALL.read_text()))
    assert placeholders == filled == {"REPO", "USER", "CONFIG", "STATE_DIR", "GROUPS"}


def _fake_getent(tmp_path, groups):
    """A getent that knows only ``groups``."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    getent = bin_dir / "getent"
    names = " ".join(groups)
    getent.write_text(f'#!/bin/sh\n[ "$1" = group ] || exit 2\nfor g in {names}; do\n'
                      '  [ "$2" = "$g" ] && { echo "$g:x:20:"; exit 0; }\ndone\nexit 2\n')
    getent.chmod(0o755)
    return {"PATH": f"{bin_dir}:/usr/bin:/bin"}


@pytest.mark.parametrize("present, expected", [
    (("dialout", "spi", "gpio", "video"), "dialout spi gpio"),
    (("dialout", "plugdev"), "dialout"),  # a Debian without the Pi's spi and gpio groups
    ((), ""),
])
def test_the_unit_names_only_groups_that_exist(tmp_path, present, expected):
    result = subprocess.run([str(PI / "existing-groups.sh"), "dialout", "spi", "gpio"],
                            capture_output=True, text=True, env=_fake_getent(tmp_path, present),
                            timeout=30, check=True)
    assert result.stdout.strip() == expected
    unit = UNIT.read_text().replace("@GROUPS@", result.stdout.strip())
    groups = re.search(r"^SupplementaryGroups=(.*)$", unit, re.M).group(1).split()
    assert set(groups) <= set(present) and len(groups) == len(expected.split())


def test_the_installer_is_valid_bash():
    subprocess.run(["bash", "-n", str(INSTALL)], check=True)


def test_the_installer_refuses_to_run_off_a_pi(tmp_path):
    model = tmp_path / "model"
    model.write_bytes(b"Generic x86 PC\x00")
    result = subprocess.run([str(INSTALL), "--config", "nowhere.toml"], capture_output=True,
                            text=True, env={"HOMEWORLDS_MODEL_FILE": str(model),
                                            "PATH": "/usr/bin:/bin"}, timeout=30)
    assert result.returncode == 1
    assert "this is not a Raspberry Pi" in result.stderr and "nothing was changed" in result.stderr
    assert result.stdout == ""


def test_make_install_pi_wants_a_config():
    result = subprocess.run(["make", "-s", "install-pi"], cwd=PI.parents[1], capture_output=True,
                            text=True, timeout=30)
    assert result.returncode != 0
    assert "make install-pi CONFIG=/path/to/table.toml" in result.stderr
