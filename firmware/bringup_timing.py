"""Bring-up timing on the board: copy this file to CIRCUITPY as code.py (with tablefw
and table_config.py, as make flash leaves them), put one tag on the pad of zone ZONE
(set ZONE below; reader 0's first pad by default) and open the console;
`homeworlds bringup-timing --port` reads
what it prints. docs/hardware.md, "Bring-up: scan timing". Put the real code.py back
afterwards (make flash).
"""

import gc

import board
import busio
import digitalio
from table_config import CONFIG

from tablefw import config as table_config
from tablefw.timing import Bench

# The zone of the pad with one tag on it; None: the first zone of reader 0.
ZONE = None

readers = table_config.build(CONFIG, board, busio, digitalio)[0]
reader = readers[0]
zone = ZONE if ZONE is not None else reader.zones[0]
for candidate in readers:
    if zone in candidate.zones:
        reader = candidate
channel = list(reader.zones).index(zone)
other = None
if len(reader.zones) > 1:
    other = 1 if channel == 0 else 0
print("TIMING BOARD %s reader %s zone %d channel %d" % (board.board_id, reader.name, zone, channel))
Bench(reader, channel, other, gc=gc).run()
