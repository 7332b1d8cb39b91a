"""Showing a computer player think on a terminal: elapsed time, and search depth and
nodes when the player reports its progress.

``think(choose, state, out, tty=...)`` calls ``choose(state)`` in a worker thread (so
the terminal stays alive however long the move takes) and meanwhile:

* on a terminal, redraws one status line in place (``\\r``) about ten times a second —
  a spinner, the seconds so far, and the last reported depth and nodes — and leaves
  ``Computer thought for 1.4 s (depth 5, 12,345 nodes)`` when done;
* elsewhere (a pipe, a log), writes ``Computer is thinking...`` at once and completes
  that same line when done, so a transcript gets exactly one line per move.

A player whose ``choose_turn`` accepts a ``progress`` keyword gets a callback; it may
be called with any object that has ``depth`` and ``nodes`` attributes (the search's
``SearchProgress``), a mapping with those keys, or keywords. Players without it still
show the elapsed time.
"""

from __future__ import annotations

import inspect
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, TextIO

SPINNER = "|/-\\"
#: Seconds between redraws on a terminal.
INTERVAL = 0.1
_CLEAR_LINE = "\r\x1b[K"


def accepts_progress(choose: Callable[..., Any]) -> bool:
    """Whether ``choose`` takes a ``progress=`` keyword (or any keyword)."""
    try:
        parameters = inspect.signature(choose).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == "progress" and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
               or p.kind is p.VAR_KEYWORD for p in parameters)


def progress_fields(*args: Any, **kwargs: Any) -> tuple[int | None, int | None]:
    """(depth, nodes) from whatever a progress callback was called with."""
    info: Any = args[0] if args else kwargs
    if isinstance(info, Mapping):
        depth, nodes = info.get("depth"), info.get("nodes")
    else:
        depth, nodes = getattr(info, "depth", None), getattr(info, "nodes", None)
    return (depth if isinstance(depth, int) else None,
            nodes if isinstance(nodes, int) else None)


def details_text(depth: int | None, nodes: int | None) -> str:
    """``depth 5, 12,345 nodes`` (the parts known so far; empty when none is)."""
    parts = []
    if depth is not None:
        parts.append(f"depth {depth}")
    if nodes is not None:
        parts.append(f"{nodes:,} nodes")
    return ", ".join(parts)


def status_text(elapsed: float, depth: int | None, nodes: int | None) -> str:
    """``1.4 s, depth 5, 12,345 nodes``."""
    details = details_text(depth, nodes)
    return f"{elapsed:.1f} s" + (f", {details}" if details else "")


class _Progress:
    """The latest progress report (written by the worker, read by the display)."""

    def __init__(self) -> None:
        self.depth: int | None = None
        self.nodes: int | None = None

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        depth, nodes = progress_fields(*args, **kwargs)
        if depth is not None:
            self.depth = depth
        if nodes is not None:
            self.nodes = nodes


def think(choose: Callable[..., Any], state: Any, out: TextIO, *, tty: bool,
          who: str = "Computer", interval: float = INTERVAL,
          clock: Callable[[], float] = time.monotonic) -> Any:
    """``choose(state)`` with its thinking shown on ``out``; returns what it returned
    (an exception it raised is raised here)."""
    progress = _Progress()
    outcome: dict[str, Any] = {}

    def work() -> None:
        try:
            if accepts_progress(choose):
                outcome["turn"] = choose(state, progress=progress)
            else:
                outcome["turn"] = choose(state)
        except BaseException as exc:  # handed to the caller's thread
            outcome["error"] = exc

    started = clock()
    worker = threading.Thread(target=work, name="computer-thinking", daemon=True)
    if not tty:
        out.write(f"{who} is thinking...")
        out.flush()
    worker.start()
    frame = 0
    try:
        while worker.is_alive():
            worker.join(interval)
            if tty and worker.is_alive():
                out.write(f"{_CLEAR_LINE}{who} is thinking {SPINNER[frame % len(SPINNER)]} "
                          f"{status_text(clock() - started, progress.depth, progress.nodes)}")
                out.flush()
                frame += 1
    except BaseException:
        out.write("\n")  # interrupted (Ctrl-C): end the status line, say nothing more
        out.flush()
        raise
    elapsed = clock() - started
    if tty:
        details = details_text(progress.depth, progress.nodes)
        out.write(f"{_CLEAR_LINE}{who} thought for {elapsed:.1f} s"
                  + (f" ({details})" if details else "") + "\n")
    else:
        out.write(f" {status_text(elapsed, progress.depth, progress.nodes)}\n")
    out.flush()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["turn"]
