"""``homeworlds firmware-config``: the board's table_config.py from a layout file."""

from __future__ import annotations

from pathlib import Path

from homeworlds.cli import main
from homeworlds.table.fwconfig import read_config_text

ROOT = Path(__file__).resolve().parents[2]
STANDARD = ROOT / "hardware" / "layouts" / "standard-2p.toml"


def test_writes_the_config_to_stdout(capsys):
    assert main(["firmware-config", "standard-2p"]) == 0
    config = read_config_text(capsys.readouterr().out)
    assert config["zones"] == 56 and config["mux"] == ["GP10", "GP11", "GP12", "GP13"]
    assert [r["busy"] for r in config["readers"]] == ["GP2", "GP3", "GP4", "GP5"]


def test_writes_a_file_and_check_accepts_it(tmp_path, capsys):
    out = tmp_path / "table_config.py"
    assert main(["firmware-config", str(STANDARD), "-o", str(out)]) == 0
    assert "wrote" in capsys.readouterr().err
    assert main(["firmware-config", str(STANDARD), "--check", str(out)]) == 0


def test_check_names_the_first_difference(tmp_path, capsys):
    out = tmp_path / "table_config.py"
    main(["firmware-config", "standard-2p", "-o", str(out)])
    out.write_text(out.read_text().replace('"busy": "GP4"', '"busy": "GP9"'))
    capsys.readouterr()
    assert main(["firmware-config", "standard-2p", "--check", str(out)]) == 1
    err = capsys.readouterr().err
    assert "CONFIG['readers'][2]['busy']: the layout says 'GP4', the file says 'GP9'" in err
    assert "homeworlds firmware-config standard-2p -o" in err


def test_the_shipped_config_passes_the_check(capsys):
    assert main(["firmware-config", "standard-2p", "--check",
                 str(ROOT / "firmware" / "table_config.py")]) == 0


def test_a_layout_without_wiring_is_refused_naming_the_key(tmp_path, capsys):
    text = STANDARD.read_text()
    text = text[:text.index("[mcu]")] + text[text.index("# A batch scans"):]
    text = "\n".join(line for line in text.splitlines()
                     if not line.startswith(("nss_output =", "busy =", "irq =")))
    path = tmp_path / "bare.toml"
    path.write_text(text)
    assert main(["firmware-config", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}: mcu: the layout does not say how the scanner is wired" in err
    assert "Traceback" not in err


def test_a_clashing_layout_is_refused_naming_file_and_key(tmp_path, capsys):
    path = tmp_path / "clash.toml"
    path.write_text(STANDARD.read_text().replace('reset = "GP6"', 'reset = "GP3"'))
    assert main(["firmware-config", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}: readers[1].busy: pin GP3 is mcu.reset (an MCU output)" in err


def test_unreadable_check_file_is_a_message(tmp_path, capsys):
    assert main(["firmware-config", "standard-2p", "--check", str(tmp_path / "none.py")]) == 2
    assert "none.py: cannot read" in capsys.readouterr().err


def test_wiring_table(capsys):
    assert main(["firmware-config", "--wiring-table", "four-seat"]) == 0
    out = capsys.readouterr().out
    assert "| NSS 0–7 | Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7 |" in out


def test_check_compares_the_dev_jumper_too(tmp_path, capsys):
    out = tmp_path / "table_config.py"
    main(["firmware-config", "standard-2p", "-o", str(out)])
    out.write_text(out.read_text().replace('DEV_JUMPER = "GP28"', 'DEV_JUMPER = "GP27"'))
    capsys.readouterr()
    assert main(["firmware-config", "standard-2p", "--check", str(out)]) == 1
    assert "DEV_JUMPER: the layout says 'GP28', the file says 'GP27'" in capsys.readouterr().err
