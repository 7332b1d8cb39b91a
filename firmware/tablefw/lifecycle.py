"""What code.py does on the board: watchdog, restart on failure (boot.py's
production and development modes are tablefw.bootmode).

The board modules (``board``, ``digitalio``, ``storage``, ``supervisor``,
``microcontroller``, ``watchdog``, ``usb_cdc``...) are handed in as one
namespace, so tests run this on CPython with fakes that record every call.

The rules, all so that the table never sits dead in the middle of a game:

- **Production mode** (the default): boot.py makes the CIRCUITPY drive
  read-only to the host, so nothing the Pi does can change the firmware or
  trigger a reload. **Development mode**: a jumper from the dev-mode pin
  (``DEV_JUMPER`` in table_config.py, GP28 on the reference tables) to GND
  while the board powers up leaves the drive writable for ``make flash``.
- Autoreload is off in both modes: a write to the drive never restarts the
  scanner; press reset (or Ctrl-D in the console) after flashing.
- The hardware watchdog resets the board if the main loop stops coming round
  for ``WATCHDOG_TIMEOUT_S`` (a hang in a driver, a stuck bus).
- Any exception out of the main loop is reported as an ERR line (``RESTART``)
  and on the console, kept in ``microcontroller.nvm`` for the next boot, and
  the board resets. After the restart the first HELLO the host asks for is
  followed by an ERR line (``RESTARTED``) saying why, so the host learns it
  even if it was not listening at the moment of the crash.
- A wrong table_config.py cannot be fixed by restarting: the firmware then
  repeats an ERR line (``CONFIG``) every few seconds instead of resetting in
  a loop.
"""

from tablefw.wire import Encoder, ErrorReport, _clean_text

# The RP2040's watchdog counts at most 8.3 s; a scan round is well under one.
WATCHDOG_TIMEOUT_S = 8.0
# Time for the ERR line to leave over USB before the reset cuts it off.
RESTART_DELAY_S = 0.5
CONFIG_ERROR_REPEAT_S = 5.0

# microcontroller.nvm holds the reason of the last restart: magic, length, text.
_NVM_MAGIC = b"HWR"
_NVM_TEXT = 120


# ------------------------------------------------------------------ code.py


def disable_autoreload(supervisor):
    runtime = getattr(supervisor, "runtime", None)
    if runtime is not None and hasattr(runtime, "autoreload"):
        runtime.autoreload = False
    else:  # CircuitPython before 8
        supervisor.disable_autoreload()


def arm_watchdog(hw, timeout=WATCHDOG_TIMEOUT_S):
    """Start the hardware watchdog in reset mode; returns it (``feed()`` it)."""
    dog = hw.microcontroller.watchdog
    dog.timeout = timeout
    dog.mode = hw.watchdog.WatchDogMode.RESET
    dog.feed()
    return dog


def take_restart_reason(hw):
    """Why the board restarted (None after a normal power-up); clears the note."""
    microcontroller = hw.microcontroller
    nvm = getattr(microcontroller, "nvm", None)
    text = None
    if nvm is not None and len(nvm) >= 4 + _NVM_TEXT and bytes(nvm[0:3]) == _NVM_MAGIC:
        length = nvm[3]
        if length <= _NVM_TEXT:
            data = bytes(nvm[4:4 + length])
            # Only what _keep_reason writes (printable ASCII) is trusted.
            if all(32 <= byte <= 126 for byte in data):
                text = data.decode()
        nvm[0:3] = b"\x00\x00\x00"
    if text is not None:
        return text
    reason = getattr(getattr(microcontroller, "cpu", None), "reset_reason", None)
    reasons = getattr(microcontroller, "ResetReason", None)
    if reasons is not None and reason == getattr(reasons, "WATCHDOG", object()):
        return "the watchdog reset the board: the firmware stopped coming round its loop"
    return None


def _keep_reason(hw, text):
    nvm = getattr(hw.microcontroller, "nvm", None)
    if nvm is None or len(nvm) < 4 + _NVM_TEXT:
        return
    data = _clean_text(text)[:_NVM_TEXT].encode()  # printable ASCII only
    nvm[0:4 + len(data)] = _NVM_MAGIC + bytes([len(data)]) + data


def describe(exc):
    text = "%s: %s" % (type(exc).__name__, exc)
    return text.strip().rstrip(":")


class ErrWriter:
    """Writes ERR lines on the data channel, numbered by the scanner's encoder
    once there is one (so the host sees no sequence gap)."""

    def __init__(self, usb_cdc):
        self.port = getattr(usb_cdc, "data", None)
        self.scanner = None
        self._own = Encoder()

    def send(self, code, text):
        port = self.port
        if port is None or not getattr(port, "connected", True):
            return False
        encoder = self.scanner.encoder if self.scanner is not None else self._own
        try:
            port.write(encoder.encode(ErrorReport(None, code, text)))
        except Exception:  # the host went away: the console still has it
            return False
        return True


def load_table_config():
    """code.py's configuration: ``CONFIG`` of table_config.py. The module is read
    once, at boot, and given back to the heap: the board keeps what it built."""
    import sys

    from table_config import CONFIG

    sys.modules.pop("table_config", None)
    return CONFIG


def run(hw, load_config, app_main, log=print, sleep=None, main_options=None):
    """code.py: scan forever; on any failure say why and reset the board.

    ``load_config()`` returns the CONFIG dict (importing table_config.py),
    ``app_main`` is ``tablefw.app.main`` (``main_options``: more keyword
    arguments for it, e.g. a test's clock). Returns only for KeyboardInterrupt
    (Ctrl-C in the console) and SystemExit, after stopping the watchdog if
    the board allows it; on the board every other way out is a reset.
    """
    if sleep is None:
        import time

        sleep = time.sleep
    # Nothing before the main try may end code.py: a board without one of
    # these features still scans.
    try:
        disable_autoreload(hw.supervisor)
    except Exception as exc:
        log("tablefw: cannot turn autoreload off: %s" % describe(exc))
    dog = None
    try:
        dog = arm_watchdog(hw)
    except Exception as exc:
        log("tablefw: no watchdog on this board: %s" % describe(exc))
    feed = dog.feed if dog is not None else None
    reason = None
    try:
        reason = take_restart_reason(hw)
    except Exception as exc:
        log("tablefw: cannot read why the board restarted: %s" % describe(exc))
    if reason is not None:
        log("tablefw: restarted: %s" % reason)
    err = ErrWriter(hw.usb_cdc)

    def started(scanner):
        err.scanner = scanner

    try:
        options = {}
        if main_options:
            for key in main_options:
                options[key] = main_options[key]
        # The configuration is not kept here: once the board is built from it, it goes.
        app_main(load_config(), hw.board, hw.busio, hw.digitalio, hw.usb_cdc, log=log, feed=feed,
                 started=started, restart_note=reason, **options)
        text = "the main loop ended"
    except (KeyboardInterrupt, SystemExit):
        if dog is not None:
            _stop_watchdog(dog, log)
        raise
    except Exception as exc:  # anything at all must end in a restart
        text = describe(exc)
        if is_config_error(exc):
            _report_config_error_forever(err, dog, text, log, sleep)
    err.send("RESTART", "restarting the board: " + text)
    log("tablefw: restarting: %s" % text)
    try:
        _keep_reason(hw, text)
    except Exception as exc:
        log("tablefw: cannot keep the reason: %s" % describe(exc))
    sleep(RESTART_DELAY_S)
    hw.microcontroller.reset()


def _report_config_error_forever(err, dog, text, log, sleep):
    log("tablefw: table_config.py: %s" % text)
    while True:
        err.send("CONFIG", "table_config.py: " + text)
        if dog is not None:
            dog.feed()
        sleep(CONFIG_ERROR_REPEAT_S)


def is_config_error(exc):
    """Failures a restart cannot cure: a missing, broken or wrong table_config.py."""
    from tablefw.errors import ConfigError

    return isinstance(exc, (ConfigError, ImportError, SyntaxError))


def _stop_watchdog(dog, log):
    try:
        dog.deinit()
    except Exception:  # RP2040: a running watchdog cannot be stopped
        log("tablefw: the watchdog cannot be stopped on this board: it resets the board in %d s"
            % WATCHDOG_TIMEOUT_S)
