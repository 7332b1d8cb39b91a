"""Issue 30 item 2: the phone's claim survives a restart of the table's host. A real
``homeworlds play --phone 1`` process (the simulated microcontroller on a pty, the display
in its own process) shows the seat's code on its admin page; a phone claims the seat;
the process is killed with SIGKILL and started again: the same phone (its cookie) keeps
the seat and plays its turn, which the table commits; no other phone can claim the seat,
neither with the old code nor with the new one. The phone then resigns: the store records
it as the terminal's ``resign`` does."""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette")

httpx = pytest.importorskip("httpx2")

from homeworlds.web.phone import CSRF_COOKIE, SESSION_COOKIE  # noqa: E402
from tests.integration.play_host import sdg_turn, simulated_table  # noqa: E402
from tests.web.server import free_port  # noqa: E402

CODE_LINE = re.compile(r"phone seat Bob: or open (http://\S+)/phone and type the code (\w+)")
ADMIN_LINE = re.compile(r"admin: (http://\S+)")


class PlayProcess:
    """``homeworlds play`` as a process of its own, its output in a log file."""

    def __init__(self, directory: Path, phone_port: int):
        self.directory = directory
        self.phone_port = phone_port
        self.proc: subprocess.Popen | None = None
        self.log_path = directory / "play.log"
        self.runs = 0

    def start(self) -> tuple[str, str, str]:
        """Start it; (the phone's base URL, the code shown, the admin link)."""
        self.runs += 1
        log = open(self.log_path, "a")  # noqa: SIM115
        log.write(f"=== run {self.runs}\n")
        log.flush()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "homeworlds", "play", "--config",
             str(self.directory / "table.toml"), "--record",
             str(self.directory / "game-record.raw"), "--store", str(self.store),
             "--phone", f"1@127.0.0.1:{self.phone_port}"],
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            env=dict(os.environ, PYTHONUNBUFFERED="1"), start_new_session=True)
        log.close()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            text = self.log_path.read_text().split(f"=== run {self.runs}\n")[-1]
            phone, admin = CODE_LINE.search(text), ADMIN_LINE.search(text)
            if phone and admin:
                return phone.group(1), phone.group(2), admin.group(1)
            assert self.proc.poll() is None, f"play exited: {text}"
            time.sleep(0.05)
        raise AssertionError(f"play did not show the phone's code: {self.log_path.read_text()}")

    @property
    def store(self) -> Path:
        return self.directory / "games.sqlite"

    def kill(self) -> None:
        assert self.proc is not None
        os.killpg(self.proc.pid, signal.SIGKILL)  # the host and its display process
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)

    def stored_turns(self) -> list[tuple[int, int, str]]:
        try:
            conn = sqlite3.connect(f"file:{self.store}?mode=ro", uri=True, timeout=1)
            try:
                return conn.execute("SELECT number, seat, sdg FROM turns ORDER BY number"
                                    ).fetchall()
            finally:
                conn.close()
        except sqlite3.Error:
            return []

    def stored_result(self) -> tuple | None:
        try:
            conn = sqlite3.connect(f"file:{self.store}?mode=ro", uri=True, timeout=1)
            try:
                rows = conn.execute("SELECT kind, winners, by_seat, after_turn FROM results"
                                    ).fetchall()
            finally:
                conn.close()
        except sqlite3.Error:
            return None
        return rows[0] if rows else None

    def wait_for_turns(self, count: int) -> list[tuple[int, int, str]]:
        deadline = time.monotonic() + 30
        while len(turns := self.stored_turns()) < count:
            assert time.monotonic() < deadline, (
                f"the store holds {turns}, not {count} turns: "
                + self.log_path.read_text()[-1500:])
            time.sleep(0.05)
        return turns


def admin_page(client: httpx.Client, link: str, showing: str) -> str:
    """The admin page once it shows ``showing`` (within 10 s)."""
    deadline = time.monotonic() + 10
    while showing not in (page := client.get(link).text):
        assert time.monotonic() < deadline, page
        time.sleep(0.1)
    return page


def csrf_of(client: httpx.Client, base: str) -> str:
    page = client.get(f"{base}/phone")
    assert page.status_code == 200
    field = re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)
    assert client.cookies.get(CSRF_COOKIE) == field
    return field


def post(client: httpx.Client, base: str, path: str, **fields) -> httpx.Response:
    return client.post(f"{base}{path}", data={"csrf": csrf_of(client, base), **fields},
                       headers={"origin": base}, follow_redirects=False)


def test_a_killed_and_restarted_play_keeps_the_phone_that_claimed_the_seat(tmp_path):
    display_port = free_port()
    with simulated_table(tmp_path, rules="sdg",
                         sections=f"[display]\nenabled = true\nport = {display_port}\n") as sim:
        play = PlayProcess(tmp_path, free_port())
        phone = httpx.Client(timeout=10)
        other = httpx.Client(timeout=10)
        admin = httpx.Client(timeout=10, follow_redirects=True)
        try:
            base, code, admin_link = play.start()
            # The table's person reads the code on the display's admin page (the display's
            # process has it from the table's pipe).
            page = admin_page(admin, admin_link, f'<b id="phone-code">{code}</b>')
            assert '<svg class="qr"' in page
            claimed = post(phone, base, "/phone/claim", code=code)
            assert claimed.status_code == 303, claimed.text
            assert phone.cookies.get(SESSION_COOKIE)
            # Ann lays out her homeworld and hands the turn over: the phone's turn.
            driver = sim.driver()
            driver.play_turn(sdg_turn("Homeworld B2 Y3 G3", "Ann"))
            play.wait_for_turns(1)

            play.kill()
            _, restarted_code, admin_link = play.start()  # a fresh admin token too
            assert restarted_code != code
            # The same phone: the play page of its seat, at the turn the store resumed.
            page = phone.get(f"{base}/phone").text
            assert "Bob at" in page and "turn 2" in page and 'id="draft"' in page, page
            # Another phone: neither code claims the seat.
            for tried in (code, restarted_code):
                refused = post(other, base, "/phone/claim", code=tried)
                assert refused.status_code == 409, refused.text
                assert "already played from another phone" in refused.text
            assert 'id="claim"' in other.get(f"{base}/phone").text
            page = admin_page(admin, admin_link, "Bob is played from a phone")
            assert restarted_code not in page
            # The phone plays its turn; the table's person lays it out and hands over.
            assert post(phone, base, "/phone/action", action="Homeworld R1 Y2 G3"
                        ).status_code == 303
            assert post(phone, base, "/phone/send", number="2").status_code == 303
            assert "your turn was sent" in phone.get(f"{base}/phone").text
            time.sleep(0.3)
            driver.play_turn(sdg_turn("Homeworld R1 Y2 G3", "Bob"))
            turns = play.wait_for_turns(2)
            assert turns[0][:2] == (1, 0) and turns[1] == (2, 1, "Homeworld R1 Y2 G3")
            # The phone resigns (confirmed): `play` records it as its terminal's `resign`.
            assert post(phone, base, "/phone/resign", confirm="yes").status_code == 303
            deadline = time.monotonic() + 30
            while not (result := play.stored_result()):
                assert time.monotonic() < deadline, play.log_path.read_text()[-1500:]
                time.sleep(0.05)
            assert result == ("resigned", "[0]", 1, 2)
            log = play.log_path.read_text()
            assert "Bob resigns from the phone" in log
            assert "by resignation" in phone.get(f"{base}/phone").text
        finally:
            phone.close()
            other.close()
            admin.close()
            play.stop()
