"""A real mosquitto for the remote-play tests (the event tests' fixture)."""

from tests.event.conftest import broker  # noqa: F401 - the fixture
