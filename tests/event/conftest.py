"""Fixtures of the event tests: a real mosquitto broker (tests/event/broker.py)."""

from __future__ import annotations

import pytest

from tests.event.broker import Broker


@pytest.fixture
def broker(tmp_path):
    d = tmp_path / "broker"
    d.mkdir()
    b = Broker(d)
    b.start()
    yield b
    b.kill()


@pytest.fixture
def secure_broker(tmp_path):
    """TLS with a generated CA, and a password file (user ``table``, password
    ``s3cret-pw``)."""
    d = tmp_path / "secure-broker"
    d.mkdir()
    b = Broker(d, tls=True, users={"table": "s3cret-pw", "hub": "hub-pw"})
    b.start()
    yield b
    b.kill()
