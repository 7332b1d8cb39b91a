"""Setting up a remote game: the invitation code's commands and the ``[remote]`` section."""

from __future__ import annotations

import pytest

from homeworlds.cli import main
from homeworlds.remote.invitation import Invitation
from homeworlds.runtime.config import ConfigError, load_config


def invite(tmp_path, capsys):
    assert main(["remote-invite", "--out", str(tmp_path / "host.code")]) == 0
    out = capsys.readouterr().out
    code = out.split("invitation code: ")[1].split()[0]
    return code


def test_invite_then_join_write_the_same_code_privately(tmp_path, capsys):
    code = invite(tmp_path, capsys)
    assert (tmp_path / "host.code").read_text().strip() == code
    assert (tmp_path / "host.code").stat().st_mode & 0o777 == 0o600
    assert main(["remote-join", code.upper(), "--out", str(tmp_path / "guest.code")]) == 0
    assert Invitation.from_code((tmp_path / "guest.code").read_text()).code == code
    # A mistyped code is refused at once, and an existing code is not overwritten.
    assert main(["remote-join", code[:-1] + ("a" if code[-1] != "a" else "b"),
                 "--out", str(tmp_path / "other.code")]) == 2
    assert "mistyped" in capsys.readouterr().err
    assert not (tmp_path / "other.code").exists()
    assert main(["remote-invite", "--out", str(tmp_path / "host.code")]) == 2
    assert "exists" in capsys.readouterr().err
    assert (tmp_path / "host.code").read_text().strip() == code


def table_toml(tmp_path, remote: str, extra: str = "") -> str:
    path = tmp_path / "table.toml"
    path.write_text('[table]\nlayout = "standard-2p"\nplayers = ["Ann", "Bob"]\n'
                    'rules = "sdg"\n' + extra + "[remote]\n" + remote)
    return str(path)


def test_a_remote_section_names_the_side_and_reads_the_code(tmp_path, capsys):
    code = invite(tmp_path, capsys)
    config = load_config(table_toml(tmp_path, 'broker = "mqtt://broker.lan"\nrole = "guest"\n'
                                    'code_file = "host.code"\n'))
    assert config.remote is not None and config.remote.seat == 1
    assert config.remote.invitation.code == code and config.remote.broker.port == 1883
    assert code not in repr(config.remote)
    assert config.remote.keepalive_s == 10  # a silent link is noticed within ~20 s


@pytest.mark.parametrize("remote, extra, where", [
    ('broker = "mqtt://b"\nrole = "host"\n', "", "remote.code_file: missing"),
    ('broker = "mqtt://b"\nrole = "north"\ncode_file = "host.code"\n', "",
     "remote.role: 'north'"),
    ('broker = "mqtt://b"\nrole = "host"\ncode_file = "open.code"\n', "",
     "remote.code_file: .*can be read by others"),
    ('broker = "mqtt://b"\nrole = "host"\ncode_file = "typo.code"\n', "",
     "remote.code_file: the invitation code is mistyped"),
    ('broker = "mqtt://b"\nrole = "host"\ncode_file = "host.code"\n',
     "[seats.1]\ncomputer = true\n", "remote: a remote game has no computer seats"),
    ('broker = "mqtt://b"\nrole = "host"\ncode_file = "host.code"\nkeepalive = 0\n', "",
     "remote.keepalive: 0: from 1 to 300 seconds"),
])
def test_a_wrong_remote_section_is_refused_with_its_key(tmp_path, capsys, remote, extra, where):
    code = invite(tmp_path, capsys)
    (tmp_path / "open.code").write_text(code)
    (tmp_path / "open.code").chmod(0o644)
    (tmp_path / "typo.code").write_text(code[:-1] + ("a" if code[-1] != "a" else "b"))
    (tmp_path / "typo.code").chmod(0o600)
    with pytest.raises(ConfigError, match=where):
        load_config(table_toml(tmp_path, remote, extra))


def test_three_tables_invite_join_and_name_their_roles_and_seats(tmp_path, capsys):
    assert main(["remote-invite", "--tables", "3", "--out", str(tmp_path / "host.code")]) == 0
    out = capsys.readouterr().out
    code = out.split("invitation code: ")[1].split()[0]
    assert code.startswith("hw3-") and "guest1 (seat 1), guest2 (seat 2)" in out
    assert main(["remote-join", code, "--out", str(tmp_path / "g2.code")]) == 0
    assert "roles are host, guest1, guest2" in capsys.readouterr().out
    assert main(["remote-invite", "--tables", "7", "--out", str(tmp_path / "x.code")]) == 2
    assert "2 to 6 tables, not 7" in capsys.readouterr().err

    def three(remote: str) -> str:
        path = tmp_path / "table.toml"
        path.write_text('[table]\nlayout = "four-seat"\nplayers = ["Ann", "Bob", "Cat"]\n'
                        'rules = "last-standing"\n[remote]\nbroker = "mqtt://b"\n'
                        'code_file = "g2.code"\n' + remote)
        return str(path)

    config = load_config(three('role = "guest2"\n'))
    assert config.remote is not None and config.remote.seats == (2,)
    assert config.remote.invitation.sides == 3
    with pytest.raises(ConfigError, match="remote.role: 'guest': the invitation is for 3 "
                                          "tables, whose roles are host, guest1, guest2"):
        load_config(three('role = "guest"\n'))
    with pytest.raises(ConfigError, match="remote.seats: this table plays 2 of 3 seats: "
                                          "the 2 other tables need one each"):
        load_config(three('role = "guest2"\nseats = [1, 2]\n'))
    with pytest.raises(ConfigError, match="remote.seats: seat 4"):
        load_config(three('role = "guest2"\nseats = [4]\n'))
