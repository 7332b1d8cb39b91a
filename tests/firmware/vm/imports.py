"""On MicroPython: import every module named on the command line from the drive at argv[1].

Prints ``imported <name> <file>`` for each, then the VM's version and .mpy version.
"""

import sys

drive = sys.argv[1]
sys.path.insert(0, drive)
for name in sys.argv[2:]:
    __import__(name)
    module = sys.modules[name]
    print("imported", name, getattr(module, "__file__", "?"))
print("version", ".".join([str(part) for part in sys.implementation.version[:3]]))
print("mpy", sys.implementation._mpy & 0xFF, (sys.implementation._mpy >> 8) & 3)
