"""A seat played from a phone (docs/remote-play.md, "A seat played from a phone").

The phone is one more source of a remote seat's turns: the seat is a computer seat of the
session whose player (``RemotePlayer``) waits for the phone's turn instead of thinking, and
the table lays that turn out by the LED guidance the computer's turns use, committing it
only when the table shows it.

``PhoneSeat`` holds what the phone's pages (``web.phone``) need, safe to use from the web
server's thread: the one-time claim code and the session token of the phone that claimed
the seat, the turn the phone builds action by action (each checked as the table checks
one, ``TurnInProgress``, with the rulebook's sentence when the rules refuse it), and a
copy of the position taken on the table loop's thread whenever a turn is committed (the
web thread never reads the live session).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace

from homeworlds.notation import format_sdg_action, parse_sdg_action
from homeworlds.remote.game import RemotePlayer
from homeworlds.rules import (
    Action,
    GameState,
    HomeworldsError,
    IllegalAction,
    Turn,
    legal_actions,
)
from homeworlds.rules.citations import Citation, cite
from homeworlds.session import Stage, TableSession
from homeworlds.store import StoreError
from homeworlds.store.phone_claims import PhoneClaims, StoredClaim

#: The claim code's letters: no 0/O, 1/I/L to misread on a screen.
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
CODE_LENGTH = 8  # 31**8: about 40 bits, and at most MAX_WRONG_CODES tries a minute
MAX_WRONG_CODES = 10
#: Seconds over which wrong codes are counted (claiming waits while there were too many).
WRONG_CODE_WINDOW_S = 60.0
#: An action as typed: longer is no action of the game.
MAX_ACTION_CHARS = 80
#: Actions of one turn: a sacrifice of a large ship (3 actions) and catastrophes stay far
#: below this.
MAX_ACTIONS = 16
#: Legal next actions offered as buttons (the others can be typed).
MAX_OFFERED = 40


class ClaimRefused(Exception):
    """The seat cannot be claimed; ``status`` is the HTTP status the page answers with."""

    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.status = status


class PhoneMistake(Exception):
    """An action or turn the rules refuse (or that cannot be read); ``citation``: the
    rulebook's sentence when the rules state the reason."""

    def __init__(self, message: str, citation: Citation | None = None):
        super().__init__(message)
        self.citation = citation


@dataclass(frozen=True)
class PhoneView:
    """The position as the phone sees it: a copy taken on the table loop's thread."""

    version: int
    state: GameState
    players: tuple[str, ...]
    rules: str
    #: The phone's turn was sent and the table has not yet committed it.
    sent: bool
    #: The game clocks as the table read them when the copy was taken (the ``clocks`` of
    #: the table feed: docs/clocks.md), None when the game is untimed.
    clocks: dict | None = None
    #: ``time.monotonic()`` when the copy was taken (the running clock counts from there).
    taken_at: float = 0.0
    #: The phone's draw offer: None, "offered" (the table's person has not answered),
    #: "declined" (answered no, or played on).
    draw: str | None = None
    #: The phone asked to resign and the table has not yet ended the game.
    resigning: bool = False
    #: How the game ended ("resigned", "agreed-draw", ...; None: by the rules or not over).
    ended_by: str | None = None

    @property
    def number(self) -> int:
        """The number of the turn to play next."""
        return self.state.ply + 1


def new_claim_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normal_code(text: str) -> str:
    """A code as typed: case, spaces and dashes do not matter."""
    return "".join(text.split()).replace("-", "").upper()


class PhoneSeat:
    """Seat ``seat`` of ``session`` played from one phone."""

    def __init__(self, session: TableSession, seat: int, *, code: str | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 claims: PhoneClaims | None = None):
        """``claims``: where the claim is kept across restarts (the table's store): a phone
        that claimed the seat before keeps it; StoreError when it cannot be read or the
        new code cannot be kept."""
        tracker = session.tracker
        if not 0 <= seat < len(tracker.players):
            raise ValueError(f"seat {seat}: the game has seats 0 to {len(tracker.players) - 1}")
        self.session = session
        self.seat = seat
        self.code = normal_code(code) if code is not None else new_claim_code()
        if len(self.code) < 6 or not self.code.isalnum() or not self.code.isascii():
            raise ValueError(f"a claim code has at least 6 letters or digits, not {code!r}")
        self._lock = threading.Lock()
        self._ready = threading.Condition(self._lock)
        self._turns: dict[int, Turn] = {}
        self._token_hash: bytes | None = None
        self._claims = claims
        if claims is not None:
            kept = claims.load(seat)
            if kept is not None:
                self._token_hash = kept.token_hash
            # A code shown before the restart is not kept (only its hash was): the table
            # shows this one now, and only it claims an unclaimed seat.
            claims.save(seat, StoredClaim(_digest(self.code), self._token_hash))
        self._wrong: deque[float] = deque()
        self._clock = clock
        self._draft: list[Action] = []
        self._draft_for = -1
        self._closed = False
        self._seen: tuple | None = None
        self._draw: str | None = None
        self._draw_noted = False
        self._resign_asked = False
        #: Ends the game as the table's terminal does, with the store's record (kind
        #: "resigned" or "agreed-draw", the seat that resigned): given by the table's host.
        self.end_game: Callable[[str, int | None], str] | None = None
        #: Told what the table's admin page shows of the seat (``admin_info``), on the
        #: table loop's thread whenever it changes.
        self.on_admin_info: Callable[[dict], None] | None = None
        #: Where the phone's pages are served (for the admin page's link and QR code).
        self.base_url: str | None = None
        self._admin_shown: dict | None = None
        self._view = self._take_view(0)

    # ------------------------------------------------------------------ the table's side

    def attach(self) -> None:
        """Follow the session: a copy of the position whenever it changes (on the loop's
        thread, at the end of a tick)."""
        self.session.events.tick.listen(Stage.CONTROL, self.refresh)

    def player_factory(self, level, seed, rules, names) -> RemotePlayer:
        """For ``new_session(player_factory=...)``: the phone's seat as a computer seat."""
        player = RemotePlayer(lambda: self)
        player.waiting_text = "waiting for the turn from the phone…"
        return player

    def refresh(self) -> None:
        """On the table loop's thread (every tick): a new copy of the position when the
        game moved on, its clocks changed state or the phone's requests were answered; the
        phone's resignation and draw offer are handed to the table here."""
        self._run_requests()
        tracker = self.session.tracker
        seen = (len(tracker.record), tracker.state.result is not None, self._clock_key(),
                self._draw, self._resign_asked)
        if seen != self._seen:
            went_back = self._seen is not None and seen[0] < self._seen[0]
            moved_on = self._seen is not None and seen[0] > self._seen[0]
            self._seen = seen
            with self._lock:
                version = self._view.version + 1
                # A turn committed is the table's now; after an undo or a new game a turn
                # sent for the old position must never be taken for the new one.
                for number in [n for n in self._turns
                               if n <= tracker.state.ply or went_back]:
                    del self._turns[number]
                mover = tracker.record[-1][0] if moved_on and tracker.record else None
                if mover is not None and mover != self.seat and self._draw == "offered":
                    # As in chess: the other player declines an offer by playing on.
                    self._draw = "declined"
                    self._note(f"{self.player}'s draw offer lapsed: "
                               f"{tracker.players[mover]} played on")
                elif mover == self.seat and self._draw == "declined":
                    self._draw = None  # the answer was read: the phone played on too
                if tracker.state.result is not None:
                    self._resign_asked = False
                    if self._draw == "offered":
                        self._draw = None
            view = self._take_view(version)
            with self._lock:
                self._view = view
            self._seen = seen[:3] + (self._draw, self._resign_asked)
        self.show_admin_info()

    @property
    def player(self) -> str:
        return self.session.tracker.players[self.seat]

    def _note(self, text: str) -> None:
        notices = getattr(self.session, "notices", None)
        if notices is not None:
            notices.append(text)

    def _clock_key(self) -> tuple | None:
        keeper = getattr(self.session, "timekeeper", None)
        clocks = getattr(keeper, "clocks", None)
        return None if clocks is None else clocks.state_key()

    def _take_view(self, version: int) -> PhoneView:
        tracker = self.session.tracker
        state = tracker.state.copy()
        feed = getattr(self.session, "clocks_feed", None)
        return PhoneView(version, state, tuple(tracker.players), tracker.rules.name,
                         sent=state.ply + 1 in self._turns,
                         clocks=feed() if feed is not None else None,
                         taken_at=time.monotonic(), draw=self._draw,
                         resigning=self._resign_asked,
                         ended_by=getattr(tracker, "ended_by", None)
                         if state.result is not None else None)

    # ------------------------------------------------------------------ resign, draw

    def resign(self) -> None:
        """The phone's player resigns (the page asked them to confirm): the table ends the
        game at its next tick, as its terminal's ``resign`` does."""
        view = self.view()
        if view.state.result is not None:
            raise PhoneMistake("not now: the game is over")
        with self._lock:
            self._resign_asked = True

    def offer_draw(self) -> None:
        """The phone's player offers a draw; the table's person accepts (``draw`` at the
        terminal, or Draw on the admin page) or declines (``decline``)."""
        view = self.view()
        if view.state.result is not None:
            raise PhoneMistake("not now: the game is over")
        with self._lock:
            if self._draw == "offered":
                raise PhoneMistake("your draw offer waits for the table's answer")
            self._draw, self._draw_noted = "offered", False

    def decline_draw(self) -> str:
        """The table's person declines the phone's draw offer (on the loop's thread);
        ValueError when there is none."""
        with self._lock:
            if self._draw != "offered":
                raise ValueError(f"{self.player} has not offered a draw")
            self._draw = "declined"
        return f"{self.player}'s draw offer declined: the game goes on"

    @property
    def draw_offered(self) -> bool:
        return self._draw == "offered"

    def _run_requests(self) -> None:
        with self._lock:
            resign, offered = self._resign_asked, self._draw == "offered"
            note_offer = offered and not self._draw_noted
            self._draw_noted = self._draw_noted or offered
        if note_offer:
            self._note(f"{self.player} offers a draw from the phone: type `draw` to accept "
                       "or `decline` to decline (or answer on the display's admin page)")
        if resign and self.session.tracker.state.result is None:
            if self.end_game is None:
                with self._lock:
                    self._resign_asked = False
                self._note(f"{self.player} resigns from the phone, but this table cannot "
                           f"record it: type `resign {self.player}` to end the game")
                return
            self._note(f"{self.player} resigns from the phone")
            self._note(self.end_game("resigned", self.seat))
            if self.session.tracker.state.result is None:
                with self._lock:  # refused (the note says why): asked once, not each tick
                    self._resign_asked = False

    # ------------------------------------------------------------------ the admin page

    def admin_info(self) -> dict:
        """What the table's admin page shows of the seat: the player, the link with the
        code (while unclaimed), whether a phone holds it, a draw offer waiting."""
        base = (self.base_url or "").rstrip("/")
        claimed = self.claimed
        return {"seat": self.seat, "player": self.player, "claimed": claimed,
                "code": None if claimed else self.code,
                "link": None if claimed or not base else f"{base}/phone?code={self.code}",
                "page": f"{base}/phone" if base else None,
                "draw_offered": self.draw_offered}

    def show_admin_info(self) -> None:
        """Tell ``on_admin_info`` what the admin page shows, if it changed."""
        if self.on_admin_info is None:
            return
        info = self.admin_info()
        if info != self._admin_shown:
            self._admin_shown = info
            self.on_admin_info(info)

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        with self._ready:
            self._closed = True
            self._ready.notify_all()

    def wait_for_turn(self, number: int, timeout: float) -> Turn | None:
        """The phone's turn ``number`` once sent (the advisor's thread waits)."""
        with self._ready:
            if number not in self._turns and not self._closed:
                self._ready.wait(timeout)
            return self._turns.get(number)

    # ------------------------------------------------------------------ the claim

    def claim(self, code: str) -> str:
        """The session token of the phone that gave the right code (once); ClaimRefused.
        The claim is kept in the table's store before the token is given (a restarted
        table knows the phone)."""
        given = normal_code(code)[:64]
        with self._lock:
            if self._token_hash is not None:
                raise ClaimRefused("this seat is already played from another phone", 409)
            now = self._clock()
            while self._wrong and now - self._wrong[0] > WRONG_CODE_WINDOW_S:
                self._wrong.popleft()
            if len(self._wrong) >= MAX_WRONG_CODES:
                raise ClaimRefused("too many wrong codes: wait a minute, then type the code "
                                   "the table shows", 429)
            if not hmac.compare_digest(given.encode(), self.code.encode()):
                self._wrong.append(now)
                raise ClaimRefused("wrong code: type the code the table shows", 403)
            token = secrets.token_urlsafe(32)
            self._keep(self.code, _digest(token))
            self._token_hash = _digest(token)
            return token

    def _keep(self, code: str, token_hash: bytes | None) -> None:
        """Keep the claim in the store (with the lock held); ClaimRefused when it cannot
        be kept, and nothing changes."""
        if self._claims is None:
            return
        try:
            self._claims.save(self.seat, StoredClaim(_digest(code), token_hash))
        except StoreError as exc:
            raise ClaimRefused(f"the table could not keep the claim in its store ({exc}): "
                               "try again", 503) from None

    def new_code(self) -> str:
        """A fresh claim code (the table's player asks for one after too many wrong
        codes); the old one no longer claims. A claimed seat keeps its phone."""
        with self._lock:
            if self._token_hash is not None:
                raise ClaimRefused("this seat is already played from another phone", 409)
            code = new_claim_code()
            self._keep(code, None)
            self.code = code
            self._wrong.clear()
            return self.code

    def release(self) -> str:
        """The table's person frees the seat (the phone was lost, or another visitor takes
        over): the phone that held it no longer plays it, a new code claims it. Its turn
        already sent stays (the table lays it out); ClaimRefused when the store cannot keep
        the change (nothing changes then)."""
        with self._lock:
            code = new_claim_code()
            self._keep(code, None)
            self._token_hash, self.code = None, code
            self._wrong.clear()
            self._draft = []
        self._admin_shown = None
        return (f"the phone seat {self.player} is free: a phone claims it with the new code "
                f"{code}" + (f" ({self.base_url.rstrip('/')}/phone?code={code})"
                             if self.base_url else ""))

    @property
    def claimed(self) -> bool:
        return self._token_hash is not None

    def holds(self, token: str | None) -> bool:
        """Whether ``token`` is the session token of the phone that claimed the seat."""
        expected = self._token_hash
        return token is not None and expected is not None and \
            hmac.compare_digest(_digest(token[:128]), expected)

    # ------------------------------------------------------------------ the turn built

    def view(self) -> PhoneView:
        with self._lock:
            view = self._view
            sent = view.number in self._turns
            draw, resigning = self._draw, self._resign_asked
        if (sent, draw, resigning) == (view.sent, view.draw, view.resigning):
            return view
        return replace(view, sent=sent, draw=draw, resigning=resigning)

    def draft(self) -> tuple[Action, ...]:
        with self._lock:
            return tuple(self._draft) if self._draft_for == self._view.version else ()

    def draft_text(self, view: PhoneView | None = None) -> list[str]:
        view = view or self.view()
        return [format_sdg_action(a, players=view.players) for a in self.draft()]

    def my_turn(self, view: PhoneView) -> str | None:
        """Why the phone cannot play now (None: it can)."""
        state = view.state
        if state.result is not None:
            return "the game is over"
        if view.resigning:
            return "you resigned: the table ends the game"
        if state.to_move != self.seat:
            return f"waiting for {view.players[state.to_move]}'s turn at the table"
        if view.sent:
            return "your turn was sent: the table lays it out (follow the lights there)"
        return None

    def add_action(self, text: str) -> Action:
        """Check ``text`` as the next action of the turn built and keep it."""
        view = self.view()
        action = self._read(text, view)
        with self._lock:
            draft = list(self._draft) if self._draft_for == view.version else []
            if len(draft) >= MAX_ACTIONS:
                raise PhoneMistake(f"a turn has at most {MAX_ACTIONS} actions here")
            tip = self._replayed(view, draft)
            try:
                tip.apply(action)
            except IllegalAction as exc:
                raise PhoneMistake(f"this action is refused: {exc.reason}",
                                   cite(exc, view.state.rules)) from None
            except HomeworldsError as exc:
                raise PhoneMistake(f"this action is refused: {exc}") from None
            self._draft = draft + [action]
            self._draft_for = view.version
        return action

    def _read(self, text: str, view: PhoneView) -> Action:
        problem = self.my_turn(view)
        if problem is not None:
            raise PhoneMistake(f"not now: {problem}")
        text = " ".join(text.split())
        if not text:
            raise PhoneMistake("type an action, e.g. Build G1 " + view.players[self.seat])
        if len(text) > MAX_ACTION_CHARS or not text.isprintable():
            raise PhoneMistake(f"an action is at most {MAX_ACTION_CHARS} printable characters")
        try:
            return parse_sdg_action(text, player=view.players[self.seat], strict=True,
                                    players=view.players)
        except (HomeworldsError, ValueError, IndexError, KeyError) as exc:
            raise PhoneMistake(f"{text!r} is not an action: {exc}") from None

    def _replayed(self, view: PhoneView, draft: list[Action]):
        tip = view.state.begin_turn()
        for earlier in draft:
            tip.apply(earlier)
        return tip

    def undo(self) -> None:
        """Take the last action of the turn built back."""
        with self._lock:
            if self._draft_for == self._view.version and self._draft:
                self._draft.pop()

    def offered(self, view: PhoneView) -> list[str]:
        """Legal next actions (at most ``MAX_OFFERED``) as the phone shows them."""
        if self.my_turn(view) is not None:
            return []
        try:
            tip = self._replayed(view, list(self.draft()))
        except HomeworldsError:
            return []
        out = []
        for action in legal_actions(tip):
            out.append(format_sdg_action(action, players=view.players))
            if len(out) >= MAX_OFFERED:
                break
        return out

    def send(self, number: int) -> Turn:
        """Hand the turn built to the table as turn ``number`` (the page's: a stale page
        cannot send a turn for another position)."""
        view = self.view()
        problem = self.my_turn(view)
        if problem is not None:
            raise PhoneMistake(f"not sent: {problem}")
        if number != view.number:
            raise PhoneMistake(f"not sent: the page shows turn {number}, the table is at "
                               f"turn {view.number}: reload")
        with self._ready:
            draft = list(self._draft) if self._draft_for == view.version else []
            if not draft:
                raise PhoneMistake("not sent: the turn has no action yet")
            tip = self._replayed(view, draft)
            try:
                tip.finish()
            except IllegalAction as exc:
                raise PhoneMistake(f"not sent: {exc.reason}",
                                   cite(exc, view.state.rules)) from None
            except HomeworldsError as exc:
                raise PhoneMistake(f"not sent: {exc}") from None
            turn = tuple(draft)
            self._turns[view.number] = turn
            self._draft = []
            self._ready.notify_all()
        return turn


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8", "replace")).digest()


__all__ = ["ClaimRefused", "PhoneMistake", "PhoneSeat", "PhoneView", "new_claim_code"]
