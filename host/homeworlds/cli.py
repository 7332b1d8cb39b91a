"""The ``homeworlds`` command: one sub-command per module in ``homeworlds.commands``."""

from __future__ import annotations

import argparse
import importlib
import sys

#: Sub-command modules, each with ``register(subparsers)`` that sets ``func`` on its parser.
COMMANDS = (
    "replay",
    "analyse",
    "demo",
    "play",
    "enroll",
    "sim_mcu",
    "table_replay",
    "branching",
    "successors",
    "wins",
    "versus",
    "games",
    "doctor",
    "pad_test",
    "bringup_timing",
    "firmware_config",
    "firmware_build",
    "archive_view",
    "hub",
    "hub_keys",
    "remote",
    "display",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="homeworlds", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"homeworlds.commands.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
