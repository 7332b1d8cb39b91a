"""``homeworlds doctor --config FILE``: check a freshly built table, one line per finding.

Checks, in order: the serial port (present, read/write permitted); what the
firmware reports (protocol version, zone and reader counts against the
layout, every reader's state from the heartbeat and ERR lines, scan timing,
tags on the table against the registry); SPI and the spidev transfer limit
for the LED chain, the chain length on a Raspberry Pi 5, the LED current cap;
and a test pattern on the LEDs. Every failed check says how to fix it. Exit
status: 0 when nothing failed (warnings allowed), 1 when a check failed, 2
when the configuration cannot be read. docs/hardware.md, "Bring-up".
"""

from __future__ import annotations

import argparse
import sys
import time

from homeworlds.bringup.checks import Check, summary
from homeworlds.bringup.ledtest import pattern_steps
from homeworlds.bringup.probe import probe_table, table_checks
from homeworlds.bringup.system import check_led_platform, check_port, check_power
from homeworlds.runtime.config import ConfigError, TableConfig, load_config


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("doctor", help="check a freshly built table: port, firmware, readers, "
                       "SPI, LED power, LED test pattern", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", metavar="FILE", required=True, help="table configuration (TOML)")
    p.add_argument("--timeout", type=float, default=15.0, metavar="SECONDS",
                   help="how long to wait for the firmware's HELLO, snapshot, two heartbeats "
                   "and the ERR line of every failing reader (repeated every 10 s; default 15)")
    p.add_argument("--no-leds", action="store_true", help="skip the LED test pattern")
    p.add_argument("--led-step", type=float, default=1.0, metavar="SECONDS",
                   help="how long each step of the LED test pattern shows (default 1)")
    p.add_argument("--root", default="/", help=argparse.SUPPRESS)  # fake /dev, /sys for tests
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        config = load_config(args.config)
    except ConfigError as error:
        print(f"homeworlds doctor: {error}", file=sys.stderr)
        return 2
    layout = config.layout
    print(f"checking the table of {config.source}: layout {layout.name!r} ({layout.zone_count} "
          f"zones, {len(layout.readers)} readers, {layout.pixel_count} pixels)", flush=True)
    checks: list[Check] = []

    def report(found: list[Check]) -> None:
        for check in found:
            print(check.to_text(), flush=True)
        checks.extend(found)

    port_checks = check_port(config.port, root=args.root)
    report(port_checks)
    if any(check.failed for check in port_checks):
        report([Check.skip("firmware", "not asked: the serial port is not usable")])
    else:
        report(_firmware_checks(config, args.timeout))
    report(check_led_platform(config.pixels, layout.pixel_count, root=args.root))
    report(check_power(config.pixels, layout.pixel_count,
                       layout.power.scanner_amps if layout.power is not None else None))
    if args.no_leds:
        report([Check.skip("LED test pattern", "--no-leds")])
    else:
        report(_led_test(config, args.led_step))
    print(summary(checks), flush=True)
    return 1 if any(check.failed for check in checks) else 0


def _firmware_checks(config: TableConfig, timeout: float) -> list[Check]:
    from homeworlds.link import SerialTransport, TableLink

    assert config.port is not None
    port, baudrate = config.port, config.baudrate
    link = TableLink(lambda: SerialTransport(port, baudrate),
                     heartbeat_timeout=config.heartbeat_timeout)
    try:
        found = probe_table(link, timeout=timeout)
    finally:
        link.close()
    return table_checks(found, config.layout, config.registry, port)


def _led_test(config: TableConfig, step: float) -> list[Check]:
    from homeworlds.pixels import PixelSinkUnavailable

    subject = "LED test pattern"
    try:
        output = config.pixels.open_output(config.layout.pixel_count)
    except PixelSinkUnavailable as error:
        return [Check.fail(subject, f"cannot open the {error.sink!r} sink: {error.problem}",
                           error.remedy)]
    shown = []
    with output:
        for what, frame in pattern_steps(config.layout):
            print(f"      showing {what}", flush=True)
            output.submit(frame)
            output.flush()
            time.sleep(step)
            shown.append(what.split(":")[0])
    return [Check.ok(subject, f"{len(shown)} steps shown on the {output.sink.kind!r} sink "
                              f"and blanked; a pixel that did not light marks a bad joint "
                              f"at or before it")]
