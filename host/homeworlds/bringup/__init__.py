"""Bring-up tools for a freshly built table: ``homeworlds doctor`` and ``homeworlds pad-test``.

- :mod:`~homeworlds.bringup.checks` — one :class:`Check` per finding (status, what, fix);
- :mod:`~homeworlds.bringup.system` — checks of the host machine: serial port, SPI,
  spidev buffer, LED chain length and power;
- :mod:`~homeworlds.bringup.probe` — what the firmware reports (HELLO, HB, ERR, SNAP)
  over the real link, turned into checks;
- :mod:`~homeworlds.bringup.ledtest` — the LED chain test pattern;
- :mod:`~homeworlds.bringup.padtest` — live per-pad read rates for antenna tuning.

User documentation: docs/hardware.md, "Bring-up".
"""
