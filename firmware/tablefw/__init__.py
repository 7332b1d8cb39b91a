"""Portable firmware core: runs on CircuitPython and CPython."""
