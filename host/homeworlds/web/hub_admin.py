"""The hub's admin sign-in: a plain form, so it works in a browser without JavaScript.

The organiser types the admin token once into the sign-in form at the top of ``/admin``
(``POST /admin/sign-in``, with the page's CSRF field). The hub answers with a session
cookie (``hw_hub_admin``: 32 random bytes, HttpOnly, SameSite=Strict, Secure over https;
the hub keeps only its SHA-256, in memory, for ``SESSION_S``) — never the token itself.
Every admin form then carries the page's CSRF field (double submit: the ``hw_hub_csrf``
cookie and the field must match) and must come from this site (``Origin``, else
``Referer``, names the hub's own host): a page of another site can make a browser send
the cookie neither (SameSite) nor the field. ``Sign out`` (``POST /admin/sign-out``)
forgets the session; a restarted hub forgets them all. Scripts keep sending the token
itself (a form field ``token`` or ``Authorization: Bearer``), as before.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from html import escape
from urllib.parse import parse_qs, urlsplit

#: The signed-in browser's session cookie, and the CSRF cookie of the admin page.
SESSION_COOKIE = "hw_hub_admin"
CSRF_COOKIE = "hw_hub_csrf"
#: A sign-in lasts an event day at most.
SESSION_S = 12 * 3600.0
#: Sessions kept at once (the oldest is forgotten first): organisers' browsers, not crowds.
MAX_SESSIONS = 32
#: Wrong tokens accepted per minute before sign-in waits (the token is long and random;
#: this only keeps a guesser from burning the hub's time).
MAX_WRONG_PER_MINUTE = 10

#: Why a form is refused, as the page says it.
STALE = "the form is stale or forged (CSRF check): reload the admin page"
CROSS_SITE = "a form from another site: refused"
NOT_SIGNED_IN = ("not signed in: sign in at the top of the admin page with the admin token "
                 "(a script sends it as a bearer token)")


def _digest(value: str) -> bytes:
    return hashlib.sha256(value.encode()).digest()


def same(given: str | None, expected: str) -> bool:
    """Compared in constant time; a missing or empty value is never right."""
    return bool(given) and hmac.compare_digest(str(given).encode(), expected.encode())


class AdminSessions:
    """The browsers signed in as the organiser (hashes of their session cookies)."""

    def __init__(self, admin_token: str, clock: Callable[[], float] = time.monotonic):
        self._token = admin_token
        self._clock = clock
        self._sessions: OrderedDict[bytes, float] = OrderedDict()  # digest -> expiry
        self._wrong: deque[float] = deque()

    def waiting(self) -> bool:
        """Too many wrong tokens within the last minute: sign-in waits."""
        now = self._clock()
        while self._wrong and now - self._wrong[0] > 60.0:
            self._wrong.popleft()
        return len(self._wrong) >= MAX_WRONG_PER_MINUTE

    def sign_in(self, token: str | None) -> str | None:
        """A new session's cookie value when ``token`` is the admin token, else None."""
        if not same(token, self._token):
            self._wrong.append(self._clock())
            return None
        session = secrets.token_urlsafe(32)
        self._sessions[_digest(session)] = self._clock() + SESSION_S
        while len(self._sessions) > MAX_SESSIONS:
            self._sessions.popitem(last=False)
        return session

    def holds(self, cookie: str | None) -> bool:
        """``cookie`` is a signed-in browser's session, not expired."""
        if not cookie or len(cookie) > 128:
            return False
        key = _digest(cookie)
        expiry = self._sessions.get(key)
        if expiry is None:
            return False
        if self._clock() >= expiry:
            del self._sessions[key]
            return False
        return True

    def sign_out(self, cookie: str | None) -> None:
        if cookie and len(cookie) <= 128:
            self._sessions.pop(_digest(cookie), None)


def csrf_of(cookies: dict[str, str]) -> str:
    """The admin page's CSRF value: the browser's cookie when it is a sane one, else new."""
    cookie = cookies.get(CSRF_COOKIE, "")
    return cookie if 16 <= len(cookie) <= 64 and cookie.isascii() and cookie.isprintable() \
        else secrets.token_urlsafe(24)


def csrf_field(csrf: str) -> str:
    return f'<input type="hidden" name="csrf" value="{escape(csrf)}">'


def set_cookie(response, name: str, value: str, request) -> None:
    response.set_cookie(name, value, httponly=True, samesite="strict", path="/",
                        secure=request.url.scheme == "https")


def same_origin(headers) -> bool:
    """The request names this host as its origin (``Origin``, else ``Referer``)."""
    origin = headers.get("origin") or headers.get("referer")
    if not origin or origin == "null":
        return False
    return urlsplit(origin).netloc == headers.get("host", "")


def browser_refusal(form: dict[str, str], cookies: dict[str, str], headers,
                    sessions: AdminSessions) -> str | None:
    """Why a browser's form without the token is refused (None: a signed-in browser's
    form from this site with the page's CSRF field)."""
    if not sessions.holds(cookies.get(SESSION_COOKIE)):
        return NOT_SIGNED_IN
    if not same(form.get("csrf"), cookies.get(CSRF_COOKIE, "")):
        return STALE
    if not same_origin(headers):
        return CROSS_SITE
    return None


def sign_in_form(csrf: str, signed_in: bool) -> str:
    """The top of the admin page: the sign-in form, or who is signed in and Sign out."""
    if signed_in:
        return ('<form id="sign-in" method="post" action="/admin/sign-out">'
                f'{csrf_field(csrf)}<span id="signed">signed in as the organiser in this '
                'browser</span> <button>Sign out</button></form>')
    return ('<form id="sign-in" method="post" action="/admin/sign-in">'
            f'{csrf_field(csrf)}<label>Admin token (the one the hub printed when it started) '
            '<input type="password" name="token" id="admin-token" '
            'autocomplete="current-password" required></label> '
            '<button>Sign in</button> <span id="signed" class="out">not signed in</span>'
            '</form>')


def sign_in_routes(sessions: AdminSessions) -> list:
    """``POST /admin/sign-in`` and ``POST /admin/sign-out`` (Starlette routes)."""
    from starlette.exceptions import HTTPException
    from starlette.responses import RedirectResponse
    from starlette.routing import Route

    async def checked_form(request) -> dict[str, str]:
        """The form's fields, when it carries the page's CSRF field and comes from here."""
        form = await _small_form(request)
        if not same(form.get("csrf"), request.cookies.get(CSRF_COOKIE, "")):
            raise HTTPException(403, STALE)
        if not same_origin(request.headers):
            raise HTTPException(403, CROSS_SITE)
        return form

    async def sign_in(request):
        """The token right: a session cookie for this browser, back to the admin page."""
        form = await checked_form(request)
        if sessions.waiting():
            raise HTTPException(429, "too many wrong tokens: wait a minute")
        session = sessions.sign_in(form.get("token"))
        if session is None:
            raise HTTPException(403, "wrong admin token: type the one the hub printed when "
                                "it started")
        response = RedirectResponse("/admin", status_code=303)
        set_cookie(response, SESSION_COOKIE, session, request)
        return response

    async def sign_out(request):
        await checked_form(request)
        sessions.sign_out(request.cookies.get(SESSION_COOKIE))
        response = RedirectResponse("/admin", status_code=303)
        response.delete_cookie(SESSION_COOKIE, path="/")
        return response

    return [Route("/admin/sign-in", sign_in, methods=["POST"]),
            Route("/admin/sign-out", sign_out, methods=["POST"])]


async def _small_form(request) -> dict[str, str]:
    """A sign-in or sign-out form's fields (at most 4 KiB of UTF-8 text)."""
    from starlette.exceptions import HTTPException

    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > 4096:
            raise HTTPException(413, "the form is too large")
    try:
        fields = parse_qs(body.decode("utf-8"), keep_blank_values=True, max_num_fields=8)
    except (UnicodeDecodeError, ValueError):
        raise HTTPException(400, "the form cannot be read") from None
    return {k: v[0] for k, v in fields.items()}
