"""The scan loop on MicroPython: thousands of rounds against virtual readers.

tests/firmware/vm/scan_rounds.py drives ``Scanner.run`` with four virtual readers
(56 zones), pieces put down and lifted, missed reads, reader faults, buttons and
host commands (garbage included), all from a simulated clock and a generator of its
own. The same script on CPython and on MicroPython must write the same protocol
lines byte for byte, and the host's codec must read them as what was placed.
"""

from __future__ import annotations

from tablefw import protocol
from tests.firmware import mpvm

SCRIPT = mpvm.VM_DIR / "scan_rounds.py"
ROUNDS = 2000


def _stream(output: str) -> tuple[bytes, list[str]]:
    lines, notes = [], []
    for line in output.splitlines():
        (notes if line.startswith("#") else lines).append(line)
    return "".join(line + "\n" for line in lines).encode(), notes


def test_thousands_of_rounds_on_micropython_write_what_cpython_writes():
    on_vm = mpvm.run(SCRIPT, mounts=[(mpvm.FIRMWARE, "/flash")],
                     args=["/flash", str(ROUNDS), "25"]).check()
    on_cpython = mpvm.cpython(SCRIPT, args=[str(mpvm.FIRMWARE), str(ROUNDS), "25"]).check()
    stream, notes = _stream(on_vm.stdout)
    assert notes[-1].startswith("# rounds ") and int(notes[-1].split()[2]) >= ROUNDS
    assert on_vm.stdout == on_cpython.stdout

    decoder = protocol.Decoder(accept=protocol.FROM_MCU)
    messages = decoder.feed(stream)
    assert decoder.dropped == 0 and decoder.counts["gaps"] == 0, decoder.last_error
    kinds = {type(message).__name__ for message in messages}
    assert {"Hello", "Snapshot", "ZoneState", "ButtonPress", "ButtonHold", "Heartbeat",
            "ErrorReport",
            "Pong", "Config"} <= kinds
    # The readers' injected faults and the host's unknown setting were reported.
    codes = {message.code for message in messages if isinstance(message, protocol.ErrorReport)}
    assert {"TIMEOUT", "CFG"} <= codes
    # The host's garbage line was counted as dropped by the firmware, in the heartbeats.
    assert max(message.rx_bad for message in messages
               if isinstance(message, protocol.Heartbeat)) > 0

    # The last snapshot (after a SYNC) holds exactly the pieces left on the table.
    placed = {}
    for note in notes:
        if note.startswith("# final zone "):
            zone, uids = note[len("# final zone "):].split(": ")
            placed[int(zone)] = tuple(uids.split(","))
    assert len(placed) > 10
    last = [message for message in messages if isinstance(message, protocol.Snapshot)][-1]
    assert {zone: uids for zone, uids in enumerate(last.zones) if uids} == placed
