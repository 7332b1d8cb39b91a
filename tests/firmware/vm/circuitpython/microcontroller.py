"""microcontroller: the watchdog asks the test what to do at every feed.

The test answers ``go`` or ``stop`` (raise KeyboardInterrupt, as Ctrl-C in the
console would).
"""

import hostboard


class _ResetReason:
    POWER_ON = "POWER_ON"
    WATCHDOG = "WATCHDOG"
    SOFTWARE = "SOFTWARE"
    RESET_PIN = "RESET_PIN"


ResetReason = _ResetReason


class _Cpu:
    reset_reason = ResetReason.POWER_ON


cpu = _Cpu()
nvm = bytearray(256)


class _Watchdog:
    def __init__(self):
        self.timeout = None
        self.mode = None
        self.feeds = 0

    def feed(self):
        self.feeds += 1
        hostboard.request(70)  # "F"
        if hostboard.answer(0):
            raise KeyboardInterrupt

    def deinit(self):
        raise RuntimeError("WatchDogTimer cannot be deinitialized once mode is set to RESET")


watchdog = _Watchdog()


def reset():
    raise SystemExit("microcontroller.reset()")
