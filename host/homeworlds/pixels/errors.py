"""Errors of the LED output side, each saying what to do about it."""

from __future__ import annotations


class PixelSettingsError(ValueError):
    """A bad LED setting: ``source`` (file or variable), ``key``, ``reason``.

    ``str(error)`` joins them, e.g. ``table.toml: pixels.gamma: must be more than 0, not -1``.
    """

    def __init__(self, reason: str, *, key: str | None = None, source: str | None = None):
        self.reason = reason
        self.key = key
        self.source = source
        super().__init__(": ".join(part for part in (source, key, reason) if part))


class UnknownSinkKind(PixelSettingsError):
    """A sink kind that is not one of :data:`homeworlds.pixels.SINK_KINDS`."""


class PixelSinkUnavailable(RuntimeError):
    """The LEDs cannot be driven on this machine as configured.

    ``sink`` is the sink kind, ``problem`` what failed (a module that did not
    import, a missing board pin, a permission), ``remedy`` what to install,
    enable or change. Raised when the sink is opened, never half-way through a
    game: the strip sinks write one blank frame while opening for that reason.
    """

    def __init__(self, sink: str, problem: str, remedy: str):
        self.sink = sink
        self.problem = problem
        self.remedy = remedy
        super().__init__(f"cannot open the {sink!r} LED sink: {problem}\n  fix: {remedy}")


class PixelSinkClosed(RuntimeError):
    """A frame was shown on a sink (or output) that was already closed."""
