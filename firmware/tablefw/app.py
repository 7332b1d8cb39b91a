"""The board's main loop, with the hardware modules handed in by code.py.

Keeping this out of code.py lets tests run it on CPython with fake
``board``/``busio``/``digitalio``/``usb_cdc`` modules.
"""

from tablefw import __version__
from tablefw.buttons import ButtonBank
from tablefw.clock import monotonic_ms, sleep_ms
from tablefw.readers import ReaderError
from tablefw.scan import Scanner
from tablefw.wire import ErrorReport


class UsbDataLink:
    """Protocol lines over the ``usb_cdc.data`` channel.

    Writes are skipped while no host holds the port open (DTR low), so the
    firmware keeps scanning whether or not anyone listens.
    """

    def __init__(self, port):
        if port is None:
            raise RuntimeError(
                "usb_cdc.data is off: copy boot.py (it enables the data channel) to CIRCUITPY and "
                "reset the board")
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


class _NoteAfterHello:
    """The link's write(), which follows the first HELLO a listening host gets
    with an ERR line saying why the board restarted."""

    def __init__(self, link, note):
        self.link = link
        self.note = note
        self.scanner = None

    def __call__(self, data):
        self.link.write(data)
        if (self.note is not None and self.scanner is not None and self.link.port.connected
                and data.find(b" HELLO ") >= 0):
            note, self.note = self.note, None
            self.link.write(self.scanner.encoder.encode(ErrorReport(None, "RESTARTED", note)))


def _build(config, board, busio, digitalio, clock, sleep):
    """tablefw.config's work: (slow zones, (readers, buttons, settings, zone
    count)). That module runs once, at boot, and is then given back to the heap
    (about 6 KB of the board's); anything that asks for it later imports it again."""
    import sys

    import tablefw
    from tablefw import config as wiring

    built = (wiring.slow_zones(config), wiring.fields_at_once(config)), \
        wiring.build(config, board, busio, digitalio, clock, sleep)
    del wiring
    sys.modules.pop("tablefw.config", None)
    if "config" in tablefw.__dict__:
        del tablefw.config
    return built


def main(config, board, busio, digitalio, usb_cdc, clock=None, sleep=None, stop=None, log=print,
         feed=None, started=None, restart_note=None):
    """Build everything from ``config`` and scan until ``stop()`` is true
    (forever on the board).

    ``feed()`` is called every time round the loop (the watchdog's),
    ``started(scanner)`` once the scanner exists, and ``restart_note`` (why
    the board last restarted) is sent as an ERR line after the first HELLO.
    """
    if clock is None:
        clock = monotonic_ms
    if sleep is None:
        sleep = sleep_ms
    (slow, fields), (readers, button_pins, settings, zone_count) = _build(config, board, busio,
                                                                          digitalio, clock,
                                                                 sleep)
    config = None  # built: the dict can go (the loop below runs forever)
    link = UsbDataLink(usb_cdc.data)
    write = _NoteAfterHello(link, restart_note)
    for reader in readers:
        if feed is not None:
            feed()
        try:
            reader.recover()
            log("%s: ready, chip firmware %s, zones %r"
                % (reader.name, reader.firmware_version, reader.zones))
        except ReaderError as exc:
            log("%s: %s (%s); will keep retrying" % (reader.name, exc.message, exc.code))
    buttons = ButtonBank(button_pins, clock)
    scanner = Scanner(readers, write, clock, settings, zone_count, buttons=len(button_pins),
                      slow_zones=slow, fields_at_once=fields)
    write.scanner = scanner
    if started is not None:
        started(scanner)
    keep_going = stop
    if feed is not None:
        def keep_going():
            feed()
            return stop is not None and stop()
    log("tablefw %s: %d readers, %d zones, %d buttons; protocol on usb_cdc.data" % (
        __version__, len(readers), zone_count, len(button_pins)))
    scanner.run(link.read, sleep, buttons.poll, keep_going, buttons.holds)
    return scanner
