"""The kit every page of the display and of the hub is made with: the HTML frame with its
base style, the assets a page links (its styles and scripts, served by the app that serves
the page), the security headers, the error page (never a trace) and the star map.

Pages hold no inline script or style: the security headers forbid both (``script-src
'self'; style-src 'self'``), so text from a table or a file can never run or restyle a
page, whatever escaping bug lets it through. What a script needs to know comes in
``data-`` attributes or in a JSON ``<script type="application/json">`` block, which is not
run. ``SecurityHeaders`` adds the headers to every answer of an app.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["KIT_CSS", "SECURITY_HEADERS", "STATUS_TITLES", "Asset", "SecurityHeaders",
           "asset_routes", "error_page", "error_response", "headers", "json_block", "map_svg",
           "page", "qr_svg"]

SECURITY_HEADERS: dict[str, str] = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; "
                               "img-src 'self' data:; frame-ancestors 'none'; "
                               "form-action 'self'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",  # cross-site: none; same-site POSTs keep their Origin
    "Cache-Control": "no-store",
}

#: The heading of an error page without a title of its own.
STATUS_TITLES: dict[int, str] = {
    400: "Bad request", 403: "Forbidden", 404: "Not found", 405: "Method not allowed",
    409: "Conflict", 413: "Too large", 422: "Cannot be shown", 500: "Error",
    503: "Unavailable", 504: "No answer in time",
}


@dataclass(frozen=True, slots=True)
class Asset:
    """A style or script a page links, served at ``path`` by ``asset_routes``."""

    path: str
    text: str
    media_type: str

    @classmethod
    def css(cls, path: str, text: str) -> Asset:
        return cls(path, text, "text/css")

    @classmethod
    def js(cls, path: str, text: str) -> Asset:
        return cls(path, text, "text/javascript")


BASE_CSS = """
html { background: #0e1119; color: #e8ebf5; font-family: "DejaVu Sans", Verdana, sans-serif; }
body { margin: 0; padding: .8rem 1.2rem; }
a { color: #8fb8ff; }
.problem { color: #ff8a80; }
.none { color: #9aa4c0; }
"""

#: The base style of the kit's pages (colours, font, margins, problem and empty texts).
KIT_CSS = Asset.css("/static/kit.css", BASE_CSS)


def page(title: str, body: str, *, styles: Sequence[Asset] = (),
         scripts: Sequence[Asset | str] = (), data: Mapping[str, Any] | None = None,
         base_style: bool = True) -> str:
    """A whole HTML page. ``body`` is markup already escaped by its maker; ``styles`` and
    ``scripts`` are linked (after the kit's base style unless ``base_style`` is false; a
    script may be a path another module serves); ``data`` becomes ``data-`` attributes of
    ``<body>``."""
    links = ([KIT_CSS] if base_style else []) + list(styles)
    head = "".join(f'<link rel="stylesheet" href="{_attr(s.path)}">' for s in links)
    head += "".join(f'<script src="{_attr(s if isinstance(s, str) else s.path)}" defer>'
                    "</script>" for s in scripts)
    attrs = "".join(f' data-{name}="{_attr(str(value))}"'
                    for name, value in (data or {}).items())
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{html.escape(title)}</title>{head}</head>"
            f"<body{attrs}>{body}</body></html>")


def json_block(element_id: str, value: Any) -> str:
    """``value`` as a JSON data block a page's script reads (never run; no ``<``, ``>`` or
    ``&`` in it, so nothing in the data can end the element)."""
    text = (json.dumps(value).replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("&", "\\u0026"))
    return f'<script type="application/json" id="{_attr(element_id)}">{text}</script>'


def error_page(status: int, text: str, *, title: str | None = None, back: str = "/",
               back_text: str = "Back") -> str:
    """The page of a request that cannot be answered: what went wrong, in words."""
    heading = title or STATUS_TITLES.get(status, "Error")
    return page(f"{status} {heading}",
                f'<h1>{html.escape(heading)}</h1><p class="problem" id="error">'
                f'{html.escape(text)}</p><p><a href="{_attr(back)}" id="back">'
                f"{html.escape(back_text)}</a></p>", data={"status": status})


def error_response(request: Any, status: int, text: str, *, title: str | None = None,
                   back: str = "/", back_text: str = "Back") -> Any:
    """``error_page`` as an answer, or JSON ``{"error", "status"}`` to a script (a request
    that accepts JSON, or one to ``/api/``, ``/feed`` or ``/events``)."""
    from starlette.responses import HTMLResponse, JSONResponse

    if "application/json" in request.headers.get("accept", "") or \
            request.url.path.startswith(("/api/", "/feed", "/events")):
        return JSONResponse({"error": text, "status": status}, status_code=status,
                            headers=headers())
    return HTMLResponse(error_page(status, text, title=title, back=back, back_text=back_text),
                        status_code=status, headers=headers())


def headers(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The security headers, with ``extra`` (e.g. another Cache-Control)."""
    out = dict(SECURITY_HEADERS)
    if extra:
        out.update(extra)
    return out


def asset_routes(assets: Iterable[Asset]) -> list:
    """Starlette routes serving ``assets`` (revalidated on every load: a new version of the
    program is picked up at once)."""
    from starlette.responses import Response
    from starlette.routing import Route

    def endpoint(asset: Asset):
        async def serve(request):
            return Response(asset.text, media_type=asset.media_type,
                            headers=headers({"Cache-Control": "no-cache"}))
        return serve

    return [Route(a.path, endpoint(a)) for a in assets]


class SecurityHeaders:
    """ASGI middleware: every answer of the app carries the security headers (those a
    route set itself are kept)."""

    def __init__(self, app: Callable):
        self.app = app
        self._headers = [(k.lower().encode("latin-1"), v.encode("latin-1"))
                         for k, v in SECURITY_HEADERS.items()]

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                message = dict(message)
                message["headers"] = list(message.get("headers", [])) + [
                    (name, value) for name, value in self._headers if name not in present]
            await send(message)

        await self.app(scope, receive, send_with_headers)


def map_svg(draw: Callable[[], str]) -> str:
    """The star map ``draw`` makes (``homeworlds.display.svg``), or, for a position that
    cannot be drawn, a short notice in its place: a page never breaks on one."""
    try:
        return draw()
    except Exception as exc:  # a drawing bug must not cut a page or a stream off
        return ('<svg xmlns="http://www.w3.org/2000/svg" class="hw-map" viewBox="0 0 800 100">'
                f'<text x="10" y="50" font-size="20">the map cannot be drawn: '
                f"{html.escape(str(exc))}</text></svg>")


def _attr(text: str) -> str:
    return html.escape(text, quote=True)


def qr_svg(link: str, size: int = 220) -> str:
    """The link as a QR code drawn in SVG (dark squares on white, a quiet zone of two),
    for a page; "" without ``qrcode`` (the web extra brings it). No style attribute: the
    pages' content security policy allows none."""
    try:
        import qrcode
    except ImportError:
        return ""
    code = qrcode.QRCode(border=2)
    code.add_data(link)
    code.make(fit=True)
    matrix = code.get_matrix()
    cells = len(matrix)
    path = "".join(f"M{x} {y}h1v1h-1z" for y, row in enumerate(matrix)
                   for x, dark in enumerate(row) if dark)
    return (f'<svg class="qr" xmlns="http://www.w3.org/2000/svg" width="{size}" '
            f'height="{size}" viewBox="0 0 {cells} {cells}" shape-rendering="crispEdges" '
            f'role="img" aria-label="QR code of the link"><rect width="{cells}" '
            f'height="{cells}" fill="#fff"/><path fill="#000" d="{path}"/></svg>')
