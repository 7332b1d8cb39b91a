"""``homeworlds pad-test --config FILE``: live read rates per pad, for tuning antennas.

Sets the firmware's debounce to a single scan (restored on exit), so that
every missed read shows, and prints for every pad that has a tag on it: the
share of scans that read each tag and the reads it missed. The pad's part of
its slot ring (or its seat's bar) lights while a tag is read on it: green at
95 % and more, amber from 70 %, red below. Runs until Ctrl-C, for
``--duration`` seconds, or (``--once``) prints one report after ``--settle``
seconds. docs/hardware.md, "Bring-up".
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
import time

from homeworlds.bringup.padtest import RAW_READS, PadMonitor
from homeworlds.runtime.config import ConfigError, TableConfig, load_config


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("pad-test", help="live per-pad read rates for tuning antennas",
                       description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", metavar="FILE", required=True, help="table configuration (TOML)")
    p.add_argument("--zones", metavar="LIST", type=_zone_list,
                   help="report only these zones, e.g. 0,3,12-14 (default: every pad with a tag)")
    when = p.add_mutually_exclusive_group()
    when.add_argument("--duration", type=float, metavar="SECONDS",
                      help="stop after this many seconds (default: run until Ctrl-C)")
    when.add_argument("--once", action="store_true",
                      help="print one report after --settle seconds and stop")
    p.add_argument("--settle", type=float, default=5.0, metavar="SECONDS",
                   help="how long --once watches before reporting (default 5)")
    p.add_argument("--interval", type=float, default=2.0, metavar="SECONDS",
                   help="seconds between reports (default 2)")
    p.add_argument("--no-leds", action="store_true", help="leave the LEDs dark")
    p.set_defaults(func=run)


def _zone_list(text: str) -> tuple[int, ...]:
    zones: list[int] = []
    try:
        for part in text.split(","):
            low, _, high = part.strip().partition("-")
            zones.extend(range(int(low), int(high or low) + 1))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a zone list such as 0,3,12-14: {text!r}") from None
    return tuple(zones)


def run(args: argparse.Namespace, stop: threading.Event | None = None) -> int:
    try:
        config = load_config(args.config)
    except ConfigError as error:
        print(f"homeworlds pad-test: {error}", file=sys.stderr)
        return 2
    if not config.port:
        print(f"homeworlds pad-test: {config.source}: serial.port: no serial port configured",
              file=sys.stderr)
        return 2
    if args.zones:
        bad = [zone for zone in args.zones if not config.layout.has_zone(zone)]
        if bad:
            print(f"homeworlds pad-test: --zones: layout {config.layout.name!r} has no zone "
                  f"{bad[0]} (zones 0-{config.layout.zone_count - 1})", file=sys.stderr)
            return 2
    output = None
    if not args.no_leds:
        from homeworlds.pixels import PixelSinkUnavailable
        try:
            output = config.pixels.open_output(config.layout.pixel_count)
        except PixelSinkUnavailable as error:
            print(f"homeworlds pad-test: LEDs stay dark: {error}", file=sys.stderr)
    duration = args.settle if args.once else args.duration
    from homeworlds.link import SerialTransport, TableLink

    port, baudrate = config.port, config.baudrate
    link = TableLink(lambda: SerialTransport(port, baudrate),
                     heartbeat_timeout=config.heartbeat_timeout)
    return serve(config, link, output, duration=duration, interval=args.interval,
                 zones=args.zones, final_only=args.once, stop=stop or _stop_on_signals())


def serve(config: TableConfig, link, output, *, duration: float | None, interval: float,
          zones=None, final_only: bool = False, stop: threading.Event | None = None,
          clock=time.monotonic) -> int:
    """Watch the pads through ``link`` and show them on ``output`` (None: no LEDs).

    Returns 0, or 1 if the table never answered."""
    from homeworlds.link import ConfigReported, LinkUp

    stop = stop or threading.Event()
    monitor = PadMonitor(config.layout)
    start = clock()
    next_report = start + interval
    originals: dict[str, int] | None = None
    answered = False
    link.configure()  # an empty CFG: the table answers with its current settings
    try:
        while not stop.is_set():
            now = clock()
            if duration is not None and now - start >= duration:
                break
            for event in link.poll(0.05):
                if isinstance(event, LinkUp):
                    answered = True
                    print(event.to_text(), flush=True)
                elif isinstance(event, ConfigReported) and originals is None:
                    originals = {key: event.settings[key] for key in RAW_READS
                                 if key in event.settings}
                    link.configure(**RAW_READS)
                monitor.handle(event)
            now = clock()
            if output is not None:
                output.submit(monitor.frame(now))
                output.poll()
            if not final_only and now >= next_report:
                print(f"--- {now - start:.0f} s\n{monitor.report(now, zones)}", flush=True)
                next_report = now + interval
        now = clock()
        print(f"=== after {now - start:.0f} s\n{monitor.report(now, zones)}", flush=True)
    finally:
        if originals:
            _restore(link, originals)
        link.close()
        if output is not None:
            output.close()
    if not answered:
        print(f"homeworlds pad-test: the table on {config.port} never answered "
              "(run `homeworlds doctor`)", file=sys.stderr)
        return 1
    return 0


def _restore(link, originals: dict[str, int], timeout: float = 1.0) -> None:
    """Put the firmware's debounce back (it also returns to its defaults on a restart)."""
    from homeworlds.link import ConfigReported

    link.configure(**originals)
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for event in link.poll(0.05):
            if isinstance(event, ConfigReported) and all(
                    event.settings.get(key) == value for key, value in originals.items()):
                return


def _stop_on_signals() -> threading.Event:
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    return stop
