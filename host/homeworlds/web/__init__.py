"""The spectator display served by the host (Starlette): the live table view with its event
stream and admin page, the archive viewer and the attract mode.

Starlette and uvicorn are an optional extra (``pip install 'homeworlds-table[web]'``): the
core table runs without them, and ``require_web`` names the extra when they are missing.
The display reads the table only through the feed (``homeworlds.feed``) and changes it only
through admin commands (``homeworlds.session``) that the table loop runs.
"""

from __future__ import annotations

INSTALL_HINT = "pip install 'homeworlds-table[web]'"


class WebUnavailable(RuntimeError):
    """The web extra is not installed (or the address cannot be served)."""


def require_web() -> None:
    """Raise WebUnavailable naming the missing package and the extra to install."""
    missing = []
    for name in ("starlette", "uvicorn"):
        try:
            __import__(name)
        except ImportError:
            missing.append(name)
    if missing:
        raise WebUnavailable(f"the web display needs {' and '.join(missing)}, which is not "
                             f"installed: {INSTALL_HINT}")
