"""code.py on MicroPython with the PN5180 driver against the host's datasheet chip model.

The board drive is what ``make flash`` builds (tablefw as .mpy, code.py and the
generated table_config.py of standard-2p as source); code.py runs unchanged on
the VM with the fake CircuitPython modules of tests/firmware/vm/circuitpython.
Every SPI frame, chip select, multiplexer select line and the reset net reach
:class:`tests.firmware.vm_board.VmBoard` over a pipe, where four PN5180 models
(homeworlds.sim.pn5180_chip) with tags on their pads answer; the USB data channel
ends in the host's codec. The host sees HELLO and a snapshot of exactly the tags
that lie on the table, sees pieces moved, and gets PONG and CFG answers.
"""

from __future__ import annotations

import pytest

from tablefw import protocol
from tests.firmware import mpvm, vm_heap
from tests.firmware.vm_board import VmBoard
from tests.firmware.vm_heap import TAGS as START
from tests.firmware.vm_heap import uid

SCRIPT = mpvm.VM_DIR / "run_code.py"
MOVED = {0: [], 20: [uid(0x100)], 55: [uid(0x555)]}


class Script:
    """What the host does at each turn of the firmware's loop."""

    def __init__(self) -> None:
        self.phase = "boot"

    @staticmethod
    def expected(layout: dict) -> dict:
        return {zone: tuple(sorted(uids)) for zone, uids in layout.items() if uids}

    def present(self, board: VmBoard) -> dict:
        state: dict[int, tuple] = {}
        for message in board.received:
            if isinstance(message, protocol.Snapshot):
                state = {zone: uids for zone, uids in enumerate(message.zones) if uids}
            elif isinstance(message, protocol.ZoneState):
                state[message.zone] = message.uids
                if not message.uids:
                    del state[message.zone]
        return state

    def __call__(self, board: VmBoard) -> str:
        if board.feeds > 20000:
            return "stop"  # the checks below will say what never came
        if self.phase == "boot":
            # The first snapshot comes once the board has scanned every pad (or after
            # its warm-up time, if the machine running the VM is slow).
            if board.of(protocol.Snapshot) and self.present(board) == self.expected(START):
                self.phase = "moving"
                for zone, uids in MOVED.items():
                    board.place(zone, uids)
                board.send(protocol.Ping(4242))
                board.send(protocol.Config({"hb_ms": 500}))
        elif self.phase == "moving":
            after = {**START, **MOVED}
            if self.present(board) == self.expected(after) and board.of(protocol.Config):
                self.phase = "done"
                return "stop"
        return "go"


@pytest.fixture(scope="module")
def drive(tmp_path_factory):
    """The board's drive for standard-2p: tablefw as .mpy, code.py, table_config.py."""
    mpvm.require()
    return vm_heap.drive(tmp_path_factory.mktemp("drive"))


def test_code_py_scans_the_chip_models_and_reports_to_the_host(drive):
    config = vm_heap.table_config(drive)
    script = Script()
    board = VmBoard(config, script)
    for zone, uids in START.items():
        board.place(zone, uids)
    done = mpvm.run(SCRIPT, mounts=[(drive, "/flash"), (mpvm.CIRCUITPYTHON, "/circuitpython")],
                    args=["/flash", "/circuitpython"], serve=board.serve, timeout=600).check()
    assert "stopped at feed" in done.stdout, done.stdout

    hello = board.of(protocol.Hello)[0]
    assert (hello.zones, hello.readers, hello.buttons) == (56, 4, 2)
    assert script.phase != "boot", f"the tags never showed: {script.present(board)}"
    assert script.phase == "done", f"the moves never showed: {script.present(board)}"
    assert protocol.Pong(4242) in board.received
    answer = board.of(protocol.Config)[-1].as_dict()
    assert answer["hb_ms"] == 500
    errors = board.of(protocol.ErrorReport)
    assert errors == [], errors
    assert board.violations == []
    for chip in board.chips.values():
        assert chip.violations == [], chip.violations
        assert chip.rf_config == (0x0D, 0x8D)
