"""The board's main loop, with the hardware modules handed in by code.py.

Keeping this out of code.py lets tests run it on CPython with fake
``board``/``busio``/``digitalio``/``usb_cdc`` modules.
"""

from tablefw import __version__
from tablefw.buttons import ButtonBank
from tablefw.clock import monotonic_ms, sleep_ms
from tablefw.config import build
from tablefw.readers import ReaderError
from tablefw.scan import Scanner


class UsbDataLink:
    """Protocol lines over the ``usb_cdc.data`` channel.

    Writes are skipped while no host holds the port open (DTR low), so the
    firmware keeps scanning whether or not anyone listens.
    """

    def __init__(self, port):
        if port is None:
            raise RuntimeError(
                "usb_cdc.data is off: copy boot.py (it enables the data channel) to CIRCUITPY and reset the board")
        self.port = port
        port.timeout = 0
        try:
            port.write_timeout = 0.05
        except AttributeError:  # older CircuitPython
            pass

    def write(self, data):
        if not self.port.connected:
            return
        written = self.port.write(data)
        if written is not None and written < len(data):
            raise OSError("USB output buffer full: %d of %d bytes written" % (written, len(data)))

    def read(self):
        waiting = self.port.in_waiting
        if waiting:
            return self.port.read(waiting)
        return None


def main(config, board, busio, digitalio, usb_cdc, clock=None, sleep=None, stop=None, log=print):
    """Build everything from ``config`` and scan until ``stop()`` is true
    (forever on the board)."""
    if clock is None:
        clock = monotonic_ms
    if sleep is None:
        sleep = sleep_ms
    readers, button_pins, settings, zone_count = build(config, board, busio, digitalio, clock, sleep)
    link = UsbDataLink(usb_cdc.data)
    for reader in readers:
        try:
            reader.recover()
            log("%s: ready, chip firmware %s, zones %r" % (reader.name, reader.firmware_version, reader.zones))
        except ReaderError as exc:
            log("%s: %s (%s); will keep retrying" % (reader.name, exc.message, exc.code))
    buttons = ButtonBank(button_pins, clock)
    scanner = Scanner(readers, link.write, clock, settings, zone_count, buttons=len(button_pins))
    log("tablefw %s: %d readers, %d zones, %d buttons; protocol on usb_cdc.data" % (
        __version__, len(readers), zone_count, len(button_pins)))
    scanner.run(link.read, sleep, buttons.poll, stop)
    return scanner
