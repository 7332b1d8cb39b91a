"""supervisor: only what code.py and tablefw.lifecycle touch."""


class _Runtime:
    autoreload = True
    serial_connected = True


runtime = _Runtime()
