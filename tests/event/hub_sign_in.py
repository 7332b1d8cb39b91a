"""Signing in to the hub's admin page as a browser does (the plain form, no script)."""

from __future__ import annotations

import re


def csrf_of(page: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found, "the page has no CSRF field"
    return found.group(1)


def sign_in(client, token: str) -> str:
    """Sign ``client`` (a Starlette TestClient) in with ``token``; returns the CSRF value
    its admin forms carry."""
    csrf = csrf_of(client.get("/admin").text)
    r = client.post("/admin/sign-in", data={"csrf": csrf, "token": token},
                    headers={"origin": "http://testserver"}, follow_redirects=False)
    assert r.status_code == 303, r.text
    return csrf
