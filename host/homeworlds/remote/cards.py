"""This table's part of a Good/Evil game played across tables: the deal (``remote.deal``)
step by step as the messages arrive, the commitments, the cards revealed and checked, and
the audit at the end. ``RemoteGame`` sends what ``due_steps`` gives and hands over what
arrives; a ``DealError`` is refused with its reason.

What this table knows (``known``): its own seats' cards once the deal is done, and every
card revealed since and checked against its commitment. ``vector`` gives the rules engine
a deal to play with: the known cards, and stand-ins for the others (the rulebook's count
of Good and Evil cards, so that the engine's sums hold), with the seats whose cards are
stand-ins (``GameState.secret_seats``): no result that depends on one is decided, and no
light or page shows one.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from homeworlds.remote.deal import DealError, P, SideDeal, audit, check_deck, check_reveal
from homeworlds.remote.messages import Commitments, DealStep, Lock, Reveal
from homeworlds.rules import Alignment, alignment_counts


@dataclass
class KeptDeal:
    """A side's part of the deal as its file keeps it (``read_deal_file``)."""

    exponent: int
    cards: dict[int, tuple[Alignment, bytes]]
    steps: dict[tuple[str, int], tuple[int, ...]]
    commitments: dict[int, str]
    known: dict[int, Alignment]
    revealed_sent: set[int]
    locks: dict[int, int]
    lock_sent: bool
    audit_result: str | None


def read_deal_file(path: Path, game_id: str, side: int) -> KeptDeal:
    """The deal kept in ``path`` for side ``side`` of game ``game_id``; DealError naming
    the file and what is wrong (another game's, or not a deal file)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data["game"] != game_id or data["side"] != side:
            raise DealError(f"{path} is the Good/Evil deal of another game or table "
                            f"({data['game']}, side {data['side']}): move it away")
        kept = KeptDeal(
            int(data["exponent"], 16),
            {int(k): (Alignment(a), bytes.fromhex(salt))
             for k, (a, salt) in data["cards"].items()},
            {(phase, int(n)): tuple(int(x, 16) for x in deck)
             for phase, n, deck in data["steps"]},
            {int(k): str(v) for k, v in data["commitments"].items()},
            {int(k): Alignment(a) for k, a in data["known"].items()},
            {int(s) for s in data["revealed_sent"]},
            {int(k): int(v, 16) for k, v in data["locks"].items()},
            bool(data["lock_sent"]), data["audit"])
    except DealError:
        raise
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise DealError(f"{path}: not a Good/Evil deal file ({exc})") from None
    if not 1 < kept.exponent < P:
        raise DealError(f"{path}: not a Good/Evil deal file (its lock is out of range)")
    return kept


class TableCards:
    """``path``: where this side's part of the deal is kept (mode 600: it holds the lock
    and the salts), so that a restarted host goes on with the same cards; None: memory
    only."""

    def __init__(self, game_id: str, players: int, side: int, sides: int,
                 local_seats: frozenset[int], path: Path | None = None):
        self.path = path
        self.game_id, self.players, self.side, self.sides = game_id, players, side, sides
        self.local_seats = local_seats
        self.deal = SideDeal(game_id, players, side, sides, local_seats)
        #: Every deck published, by (phase, side): the audit repeats them.
        self.steps: dict[tuple[str, int], tuple[int, ...]] = {}
        self.commitments: dict[int, str] = {}
        #: The cards this table knows: its own, and those revealed and checked.
        self.known: dict[int, Alignment] = {}
        self.revealed_sent: set[int] = set()
        self.locks: dict[int, int] = {}
        self.lock_sent = False
        #: None until every side's lock is in; then "" (the deal checked) or the reason.
        self.audit_result: str | None = None
        if path is not None and path.exists():
            self._load(path)

    # ------------------------------------------------------------------ kept on disk

    def _load(self, path: Path) -> None:
        kept = read_deal_file(path, self.game_id, self.side)
        self.deal.exponent = kept.exponent
        self.deal.cards = kept.cards
        self.steps, self.commitments, self.known = kept.steps, kept.commitments, kept.known
        self.revealed_sent, self.locks = kept.revealed_sent, kept.locks
        self.lock_sent, self.audit_result = kept.lock_sent, kept.audit_result

    def save(self) -> None:
        """Kept at once (written whole, then renamed), readable by this user only."""
        if self.path is None:
            return
        data = {
            "game": self.game_id, "side": self.side,
            "exponent": format(self.deal.exponent, "x"),
            "cards": {str(k): [str(a), salt.hex()] for k, (a, salt) in self.deal.cards.items()},
            "steps": [[phase, side, [format(x, "x") for x in deck]]
                      for (phase, side), deck in sorted(self.steps.items())],
            "commitments": {str(k): v for k, v in self.commitments.items()},
            "known": {str(k): str(a) for k, a in self.known.items()},
            "revealed_sent": sorted(self.revealed_sent),
            "locks": {str(k): format(v, "x") for k, v in self.locks.items()},
            "lock_sent": self.lock_sent, "audit": self.audit_result,
        }
        temporary = self.path.with_name(self.path.name + ".new")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, self.path)

    def told_again(self) -> list[DealStep | Commitments | Reveal | Lock]:
        """Everything this side said of the deal, for a side that was away."""
        out: list[DealStep | Commitments | Reveal | Lock] = [
            DealStep(self.game_id, phase, side, tuple(format(x, "x") for x in deck))
            for (phase, side), deck in sorted(self.steps.items()) if side == self.side]
        own = {s: self.commitments[s] for s in self.local_seats if s in self.commitments}
        if own:
            out.append(Commitments(self.game_id, tuple(sorted(own.items()))))
        for seat in sorted(self.revealed_sent):
            alignment, salt = self.deal.cards[seat]
            out.append(Reveal(self.game_id, seat, str(alignment), salt.hex()))
        if self.lock_sent:
            out.append(Lock(self.game_id, format(self.deal.exponent, "x")))
        return out

    # ------------------------------------------------------------------ the deal

    @property
    def dealt(self) -> bool:
        """Every seat's card committed, this table's own opened."""
        return len(self.commitments) == self.players and self.local_seats <= set(self.known)

    def progress(self) -> str:
        done = len(self.steps) + (self.players if len(self.commitments) == self.players
                                  else 0)
        return f"step {min(done, 2 * self.sides) + 1} of {2 * self.sides + 1}"

    def due_steps(self) -> list[DealStep | Commitments]:
        """What this side publishes now: its shuffle once the side before it shuffled, its
        open step once the last shuffle and the side before it opened, its commitments
        once every side opened."""
        out: list[DealStep | Commitments] = []
        k, last = self.side, self.sides - 1
        if ("shuffle", k) not in self.steps:
            before = self.deal.first_deck() if k == 0 else self.steps.get(("shuffle", k - 1))
            if before is not None:
                out.append(self._publish("shuffle", self.deal.shuffle(before)))
        elif ("open", k) not in self.steps:
            before = self.steps.get(("shuffle", last)) if k == 0 \
                else self.steps.get(("open", k - 1))
            if before is not None:
                out.append(self._publish("open", self.deal.open_others(before)))
        elif ("open", last) in self.steps and not self.local_seats <= set(self.known):
            committed = self.deal.take_cards(self.steps[("open", last)])
            for seat, (alignment, _salt) in self.deal.cards.items():
                self.known[seat] = alignment
            self.commitments.update(committed)
            out.append(Commitments(self.game_id, tuple(sorted(committed.items()))))
        return out

    def _publish(self, phase: str, deck: tuple[int, ...]) -> DealStep:
        self.steps[(phase, self.side)] = deck
        return DealStep(self.game_id, phase, self.side, tuple(format(x, "x") for x in deck))

    def step_received(self, message: DealStep) -> None:
        deck = tuple(int(x, 16) for x in message.deck)
        check_deck(deck, self.players, f"side {message.side}'s {message.phase} step",
                   distinct=message.phase == "shuffle")
        held = self.steps.get((message.phase, message.side))
        if held is not None and held != deck:
            raise DealError(f"side {message.side} sent two different decks for its "
                            f"{message.phase} step")
        self.steps[(message.phase, message.side)] = deck

    def commitments_received(self, message: Commitments) -> None:
        for seat, digest in message.cards:
            if seat >= self.players:
                raise DealError(f"a commitment for seat {seat} of {self.players}")
            held = self.commitments.get(seat)
            if held is not None and held != digest:
                raise DealError(f"seat {seat}'s table committed twice, to different cards")
            self.commitments[seat] = digest

    # ------------------------------------------------------------------ reveals

    def reveal(self, seat: int) -> Reveal:
        alignment, salt = self.deal.cards[seat]
        self.revealed_sent.add(seat)
        return Reveal(self.game_id, seat, str(alignment), salt.hex())

    def reveal_received(self, message: Reveal) -> bool:
        """A card revealed by its table: checked against its commitment (DealError).
        True when it is news here."""
        check_reveal(self.game_id, message.seat, message.alignment,
                     bytes.fromhex(message.salt), self.commitments.get(message.seat))
        if message.seat in self.known:
            return False
        self.known[message.seat] = Alignment(message.alignment)
        return True

    def vector(self) -> tuple[tuple[Alignment, ...], frozenset[int]]:
        """A deal for the rules engine: the known cards, and stand-ins for the others
        (the rest of the rulebook's cards, Good first); and the seats of stand-ins."""
        good, evil = alignment_counts(self.players)
        known = self.known
        good -= sum(1 for a in known.values() if a == Alignment.GOOD)
        evil -= sum(1 for a in known.values() if a == Alignment.EVIL)
        if good < 0 or evil < 0:
            raise DealError("the cards revealed are more Good or Evil cards than the deal has")
        rest = [Alignment.GOOD] * good + [Alignment.EVIL] * evil
        cards = tuple(known[s] if s in known else rest.pop(0) for s in range(self.players))
        return cards, frozenset(s for s in range(self.players) if s not in known)

    # ------------------------------------------------------------------ the audit

    def lock(self) -> Lock:
        self.lock_sent = True
        self.locks[self.side] = self.deal.exponent
        return Lock(self.game_id, format(self.deal.exponent, "x"))

    def lock_received(self, side: int, message: Lock, owners: Sequence[int]) -> None:
        """A side's lock at the end; once every side's is in, the whole deal is repeated
        and every card revealed checked against it (DealError naming what is wrong)."""
        exponent = int(message.exponent, 16)
        if not 1 < exponent < P:
            raise DealError(f"side {side}'s lock is not a lock of this deal")
        self.locks[side] = exponent
        self.try_audit(owners)

    def try_audit(self, owners: Sequence[int]) -> None:
        """Once every side's lock is in (ours sent too): the audit, once."""
        if len(self.locks) < self.sides or self.audit_result is not None:
            return
        try:
            audit(self.game_id, self.players, owners, self.steps,
                  [self.locks[k] for k in range(self.sides)], dict(self.known))
        except (DealError, KeyError) as exc:
            self.audit_result = f"the deal does not check: {exc}"
            raise DealError(self.audit_result) from None
        self.audit_result = ""
