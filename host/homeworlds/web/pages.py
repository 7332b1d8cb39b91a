"""The HTML frame shared by the display's pages, and the error page (never a trace)."""

from __future__ import annotations

from homeworlds.display.svg import esc

BASE_CSS = """
html { background: #0e1119; color: #e8ebf5; font-family: "DejaVu Sans", Verdana, sans-serif; }
body { margin: 0; padding: .8rem 1.2rem; }
a { color: #8fb8ff; }
.problem { color: #ff8a80; }
.none { color: #9aa4c0; }
"""


def page(title: str, body: str, *, css: str = "", step: int | None = None) -> str:
    """A whole HTML page. ``body`` is markup already escaped by its maker."""
    data = "" if step is None else f' data-step="{step}"'
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{esc(title)}</title><style>{BASE_CSS}{css}</style></head>"
            f"<body{data}>{body}</body></html>")


def error_page(title: str, text: str, *, back: str | None = None) -> str:
    link = f'<p><a href="{esc(back)}">Back</a></p>' if back else ""
    return page(title, f'<h1>{esc(title)}</h1><p class="problem" id="error">{esc(text)}</p>'
                f"{link}")
