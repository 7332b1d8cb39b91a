"""The scan loop for ROUNDS rounds against virtual readers, on CPython or MicroPython.

    scan_rounds.py DRIVE ROUNDS SEED

Four virtual readers serve the 56 zones of a standard two-player table (the bank
tray scanned slowly); pieces are put down and lifted, reads miss now and then,
buttons are pressed and held, readers fail, and the host sends SYNC, PING, CFG and garbage.
Everything is driven by a simulated clock and a generator of our own, so both
Pythons take exactly the same path and must print exactly the same lines: every
protocol line the firmware wrote, as it wrote it, and ``#`` lines saying what
was placed.
"""

import sys

sys.path.insert(0, sys.argv[1])

from tablefw import protocol  # noqa: E402
from tablefw.scan import Scanner  # noqa: E402
from tablefw.virtual import VirtualReader  # noqa: E402

ROUNDS = int(sys.argv[2])
SEED = int(sys.argv[3])
STEP_MS = 4  # what one zone's scan costs on the simulated clock


class Numbers:
    """A linear congruential generator: the same numbers on both Pythons (their
    random modules differ), fractions exact in a 32-bit float."""

    def __init__(self, seed):
        self.state = seed & 0x7FFFFFFF

    def below(self, count):
        self.state = (self.state * 1103515245 + 12345) & 0x7FFFFFFF
        return (self.state >> 8) % count

    def random(self):
        return self.below(32768) / 32768


class Clock:
    def __init__(self):
        self.now = 0

    def __call__(self):
        return self.now

    def sleep(self, ms):
        self.now += ms


numbers = Numbers(SEED)
clock = Clock()
zone_sets = [list(range(0, 16)), list(range(16, 31)), list(range(31, 44)), list(range(44, 56))]
readers = [VirtualReader(zones, 0.05, Numbers(SEED + index + 1), "virtual#%d" % index)
           for index, zones in enumerate(zone_sets)]
owner = {}
for reader in readers:
    for zone in reader.zones:
        owner[zone] = reader


def write(data):
    # One print per line, as the lines left the firmware.
    for line in data.decode().split("\n")[:-1]:
        print(line)


scanner = Scanner(readers, write, clock, zone_count=56, buttons=2, slow_zones=range(44, 56))
host = protocol.Encoder()
pending = []
pressed = []


def uid(number):
    return "E0040150%08X" % number


def read():
    clock.now += STEP_MS
    if pending:
        return pending.pop(0)
    return None


def poll_buttons():
    if pressed:
        return [pressed.pop(0)]
    return []


def poll_holds(hold_ms):
    if numbers.below(4000) == 0:
        return [numbers.below(2)]
    return []


def stop():
    rounds = scanner.rounds
    if rounds >= ROUNDS:
        return True
    if scanner.scans % 97 == 0:
        change = numbers.below(10)
        zone = numbers.below(56)
        reader = owner[zone]
        if change < 5:
            tags = [uid(zone * 1000 + numbers.below(30)) for _ in range(1 + numbers.below(3))]
            reader.set_tags(zone, tags)
        elif change < 8:
            reader.clear(zone)
        elif change == 8:
            pressed.append(numbers.below(2))
        else:
            command = numbers.below(6)
            if command == 0:
                pending.append(host.encode(protocol.Sync()))
            elif command == 1:
                pending.append(host.encode(protocol.Ping(numbers.below(100000))))
            elif command == 2:
                pending.append(host.encode(protocol.Config({"debounce_off": 2 + numbers.below(3)})))
            elif command == 3:
                pending.append(b"garbage \xff\x00 line\n" + host.encode(protocol.Ping(7))[3:])
            elif command == 4:
                pending.append(host.encode(protocol.Config({"no_such_key": 1})))
            else:
                reader.fail_next(1 + numbers.below(3), "TIMEOUT", "injected")
        print("# t=%d zone %d: %s" % (clock.now, zone, ",".join(reader.tags(zone)) or "-"))
    return False


scanner.run(read, clock.sleep, poll_buttons, stop, poll_holds)
# Every piece still on the table, then a last snapshot to compare it with.
for zone in range(56):
    tags = owner[zone].tags(zone)
    if tags:
        print("# final zone %d: %s" % (zone, ",".join(sorted(tags))))
for reader in readers:
    reader.miss_probability = 0.0
for _ in range(10 * 56):
    scanner.step()
    clock.now += STEP_MS
scanner.feed(host.encode(protocol.Sync()))
print("# rounds %d scans %d" % (scanner.rounds, scanner.scans))
