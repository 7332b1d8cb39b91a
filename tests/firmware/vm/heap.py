"""The firmware's heap on MicroPython, as the board keeps it.

    heap.py DRIVE CIRCUITPYTHON STEPS

Runs in phases (see run.mjs): MicroPython's WebAssembly port collects garbage only
between two phases, so the heap measured at the start of a phase holds exactly what
is still reachable. Figures, in bytes over the heap before the firmware's first
import (the fake hardware modules, built into a real board, come before that):

- ``imports``: after importing what code.py imports (tablefw.lifecycle, tablefw.app);
- ``boot``: after booting to the scan loop as code.py does (tablefw.app.main with
  the drive's table_config.CONFIG, every reader initialised, HELLO and the first
  snapshot sent), code.py's own compiled code included;
- ``live_max``: the most still reachable between two scan steps, over STEPS steps;
- ``step_max``: the most the heap held at the end of a step before any collection
  (reachable plus all the step allocated): a bound on the high-water mark of a
  board that collects only when it must. The fake hardware allocates nothing on
  the way (see hostboard.py), so these are the firmware's bytes.

Each figure is printed as ``heap <name> <bytes>``.
"""

import gc
import sys

drive = sys.argv[1]
sys.path.insert(0, sys.argv[2])
sys.path.insert(0, drive)
STEPS = int(sys.argv[3])

# CircuitPython's built-in modules, and what the measurement itself uses.
import board  # noqa: E402
import busio  # noqa: E402
import digitalio  # noqa: E402
import hostboard  # noqa: E402, F401
import microcontroller  # noqa: E402, F401
import storage  # noqa: E402, F401
import supervisor  # noqa: E402, F401
import usb_cdc  # noqa: E402
import watchdog  # noqa: E402, F401

kept = {}
figures = {"live_max": 0, "step_max": 0}
state = [0, 0, None]  # phase number, steps taken, the step's stop() state
base = [0]


def report(name, value):
    print("heap %s %d" % (name, value))


def stop_after_one_step():
    # scanner.run() asks before each step: go once, then stop.
    state[2] = not state[2]
    return not state[2]


def phase():
    number = state[0]
    state[0] += 1
    if number == 0:
        base[0] = gc.mem_alloc()
        from tablefw import lifecycle
        from tablefw.app import main

        kept["modules"] = (lifecycle, main)
    elif number == 1:
        report("imports", gc.mem_alloc() - base[0])
        with open(drive + "/code.py") as source:
            kept["code.py"] = compile(source.read(), "code.py", "exec")
        from tablefw.app import main
        from tablefw.buttons import ButtonBank

        started = []
        from tablefw.lifecycle import load_table_config

        config = load_table_config()
        button_names = config.get("buttons", [])
        kept["scanner"] = main(config, board, busio, digitalio, usb_cdc, log=lambda text: None,
                               feed=microcontroller.watchdog.feed, started=started.append,
                               stop=lambda: started[0].ready)
        # main()'s loop, from outside: the same run() with the same arguments.
        scanner = kept["scanner"]
        buttons = ButtonBank([digitalio.claimed[int(name[2:])] for name in button_names],
                             scanner.clock)
        del config
        kept["loop"] = (scanner.write.link.read, buttons.poll, buttons.holds)
    elif number == 2:
        report("boot", gc.mem_alloc() - base[0])
    else:
        live = gc.mem_alloc() - base[0]
        figures["live_max"] = max(figures["live_max"], live)
        read, poll, holds = kept["loop"]
        from tablefw.clock import sleep_ms

        kept["scanner"].run(read, sleep_ms, poll, stop_after_one_step, holds)
        figures["step_max"] = max(figures["step_max"], gc.mem_alloc() - base[0])
        state[1] += 1
        if state[1] >= STEPS:
            report("live_max", figures["live_max"])
            report("step_max", figures["step_max"])
            print("scans", kept["scanner"].scans, "rounds", kept["scanner"].rounds)
            return False
    gc.collect()  # runs once this phase has returned
    return True


gc.collect()
