"""Enrollment: learn which tag is which piece from one look at a filled bank tray.

The user puts every piece in the bank tray (each compartment holds all copies
of its colour-size) and the turn token on seat 0's token zone; one snapshot of
the zones then says, for each tag, which colour-size it is on. Copies of a
colour-size are told apart by copy letters given in sorted UID order, so the
same tray gives the same registry every time.

This module is pure: it takes the layout and the snapshot and returns a
registry plus a report of everything that looked wrong. Reading the snapshot
from the table and saving the file are the caller's job; save only a report
that is ``ok`` unless the user insists.

Merging with an existing registry (``existing=``): tags it already knows keep
their copy letters; a compartment holding exactly the expected number of tags
is taken as the whole truth about its colour-size (registered copies no longer
in it are dropped, e.g. after a piece was replaced); a compartment that is
short keeps every registered copy.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from homeworlds.rules import Piece
from homeworlds.table.layout import Layout, ZoneKind
from homeworlds.table.registry import (
    ALIGNMENTS,
    COPY_LETTERS,
    Registry,
    TagInfo,
    normalize_uid,
)


class EnrollError(ValueError):
    """Enrollment cannot start at all (e.g. the layout has no bank tray)."""


def copies_for_players(players: int) -> int:
    """Copies of each colour-size in the bank: 3 for two players, players + 1 in general."""
    if not 2 <= players <= 6:
        raise ValueError(f"Homeworlds is played by 2 to 6 players, not {players}")
    return players + 1


@dataclass(frozen=True, slots=True)
class EnrollProblem:
    """Something the user must fix, at ``zone`` (None: not tied to a zone)."""

    zone: int | None
    message: str
    where: str = ""
    uid: str | None = None

    def to_text(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message


@dataclass(frozen=True, slots=True)
class EnrollReport:
    layout_name: str
    copies_per_kind: int
    problems: tuple[EnrollProblem, ...]
    notes: tuple[str, ...]
    assigned: tuple[tuple[str, TagInfo], ...]
    """Tags newly registered (or re-registered) by this enrollment, in bank order."""
    dropped: tuple[tuple[str, TagInfo], ...]
    """Registrations of the existing registry this enrollment removed."""
    pieces_registered: int
    pieces_expected: int
    token_uid: str | None

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_text(self) -> str:
        head = (f"Enrollment on layout {self.layout_name!r} "
                f"({self.copies_per_kind} copies of each colour-size): ")
        count = len(self.problems)
        lines = [head + ("OK" if self.ok else f"{count} problem{'s' if count > 1 else ''}")]
        lines += [f"  - {problem.to_text()}" for problem in self.problems]
        token = self.token_uid or "none"
        lines.append(f"Registry: {self.pieces_registered} of {self.pieces_expected} piece copies, "
                     f"turn token {token}; {len(self.assigned)} tag(s) newly registered"
                     + (f", {len(self.dropped)} dropped." if self.dropped else "."))
        if self.notes:
            lines.append("Notes:")
            lines += [f"  - {note}" for note in self.notes]
        return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class Enrollment:
    registry: Registry
    report: EnrollReport


def enroll(layout: Layout, snapshot: Mapping[int, Iterable[str]], *,
           copies_per_kind: int = 3, existing: Registry | None = None,
           token_seat: int = 0, card_zones: Mapping[int, str] | None = None) -> Enrollment:
    """Build a registry from one snapshot ``{zone: uids}`` of a filled bank tray.

    ``card_zones`` optionally names zones where alignment cards lie
    (``{43: "good"}``): every tag there is registered as that card.
    """
    if not layout.has_bank:
        raise EnrollError(f"layout {layout.name!r} has no bank tray; enrollment needs one "
                          "(a [bank] table in the layout file)")
    if not 1 <= copies_per_kind <= len(COPY_LETTERS):
        raise EnrollError(f"copies per colour-size must be 1-{len(COPY_LETTERS)}, "
                          f"not {copies_per_kind}")
    if not 0 <= token_seat < layout.seat_count:
        raise EnrollError(f"layout {layout.name!r} has seats 0-{layout.seat_count - 1}, "
                          f"not {token_seat}")
    token_zone = layout.token_zone(token_seat)
    cards = dict(card_zones or {})
    for zone, alignment in cards.items():
        if alignment not in ALIGNMENTS:
            raise EnrollError(f"card zone {zone}: alignment must be 'good' or 'evil', "
                              f"not {alignment!r}")
        if not layout.has_zone(zone):
            raise EnrollError(f"card zone {zone} is not in layout {layout.name!r}")
        if zone == token_zone or layout.zone_role(zone).kind is ZoneKind.BANK:
            raise EnrollError(f"card zone {zone} is the token zone or a bank compartment")
    return _Enroller(layout, copies_per_kind, existing or Registry(), token_zone, cards) \
        .run(snapshot)


class _Enroller:
    def __init__(self, layout: Layout, copies: int, existing: Registry, token_zone: int,
                 cards: dict[int, str]):
        self.layout = layout
        self.copies = copies
        self.existing = existing
        self.token_zone = token_zone
        self.cards = cards
        self.problems: list[EnrollProblem] = []
        self.notes: list[str] = []
        self.changes: dict[str, TagInfo] = {}
        self.drops: dict[str, TagInfo] = {}
        self.seen: dict[str, list[int]] = {}  # uid -> zones it was read in
        self.contents: dict[int, list[str]] = {}  # zone -> uids read there only

    def problem(self, zone: int | None, message: str, uid: str | None = None) -> None:
        where = self.layout.describe_zone(zone) if zone is not None and \
            self.layout.has_zone(zone) else (f"zone {zone}" if zone is not None else "")
        self.problems.append(EnrollProblem(zone, message, where, uid))

    def known_text(self, uid: str) -> str:
        info = self.existing.lookup(uid)
        return f"{uid} (registered as {info})" if info else uid

    def run(self, snapshot: Mapping[int, Iterable[str]]) -> Enrollment:
        self.read(snapshot)
        self.enroll_token()
        self.enroll_cards()
        self.report_strays()
        for compartment in self.layout.bank:
            self.enroll_compartment(compartment.zone, compartment.piece)
        return self.result()

    def read(self, snapshot: Mapping[int, Iterable[str]]) -> None:
        for zone in sorted(snapshot):
            raw_uids = sorted(snapshot[zone])
            if not self.layout.has_zone(zone):
                self.problem(zone, f"{len(raw_uids)} tag(s) reported in a zone layout "
                             f"{self.layout.name!r} does not have: is the firmware set up for "
                             "another layout?")
                continue
            for raw in raw_uids:
                try:
                    uid = normalize_uid(raw)
                except ValueError as error:
                    self.problem(zone, f"{error} (reported by the firmware; ignored)")
                    continue
                zones = self.seen.setdefault(uid, [])
                if zone not in zones:
                    zones.append(zone)
        for uid, zones in sorted(self.seen.items()):
            if len(zones) > 1:
                places = "; ".join(self.layout.describe_zone(z) for z in zones)
                self.problem(zones[0], f"tag {self.known_text(uid)} is read in {len(zones)} zones "
                             f"at once ({places}): it lies across two pads or one pad's antenna "
                             "reaches the other; move the piece well inside one pad", uid)
            else:
                self.contents.setdefault(zones[0], []).append(uid)

    def enroll_token(self) -> None:
        on_zone = self.contents.get(self.token_zone, [])
        old = self.existing.token_uid
        if not on_zone:
            if old:
                self.notes.append(f"no tag on the turn-token zone: the registered turn token "
                                  f"{old} is kept")
            else:
                self.problem(self.token_zone, "no tag here: lay the turn token on this zone")
            return
        if len(on_zone) > 1:
            self.problem(self.token_zone, f"{len(on_zone)} tags here ("
                         f"{', '.join(map(self.known_text, on_zone))}): lay only the turn token "
                         "on this zone")
            return
        uid = on_zone[0]
        known = self.existing.lookup(uid)
        if known is not None and not known.is_token:
            self.problem(self.token_zone, f"tag {uid} lies where the turn token goes but is "
                         f"registered as {known}: put that piece in its compartment and the "
                         "turn token here", uid)
        elif known is None:
            self.changes[uid] = TagInfo.token()
            if old:
                self.drops[old] = TagInfo.token()
                self.notes.append(f"the turn token is now tag {uid} (it was {old})")

    def enroll_cards(self) -> None:
        for zone, alignment in sorted(self.cards.items()):
            card = TagInfo.card(alignment)
            for uid in self.contents.get(zone, []):
                known = self.existing.lookup(uid)
                if known is None:
                    self.changes[uid] = card
                elif known != card:
                    self.problem(zone, f"tag {uid} is registered as {known}, not as a "
                                 f"{alignment} card: take it off this zone", uid)

    def report_strays(self) -> None:
        allowed = ("the bank tray, the turn-token zone and the card zones" if self.cards
                   else "the bank tray and the turn-token zone")
        for zone, uids in sorted(self.contents.items()):
            role = self.layout.zone_role(zone)
            if role.kind is ZoneKind.BANK or zone == self.token_zone or zone in self.cards:
                continue
            self.problem(zone, f"{len(uids)} tag(s) here ({', '.join(map(self.known_text, uids))})"
                         f": during enrollment only {allowed} may hold tags; put these pieces "
                         "in their compartments", uids[0] if len(uids) == 1 else None)

    def enroll_compartment(self, zone: int, piece: Piece) -> None:
        same: list[str] = []
        new: list[str] = []
        for uid in self.contents.get(zone, []):
            known = self.existing.lookup(uid)
            if known is None:
                new.append(uid)
            elif known.is_piece and known.piece == piece:
                same.append(uid)
            else:
                self.problem(zone, f"tag {uid} is registered as {known} but lies in the {piece} "
                             f"compartment: put that piece where it belongs (or delete the tag's "
                             "line from the registry if the registry is wrong)", uid)
        count = len(same) + len(new)
        registered = self.existing.copies_of(piece)
        if count > self.copies:
            self.problem(zone, f"{count} tags, expected {self.copies}: a piece of another "
                         "colour-size, a spare piece or the token is in this compartment; "
                         f"nothing was enrolled from it", None)
            return
        if count < self.copies:
            missing = self.copies - count
            self.problem(zone, f"{count} tag(s), expected {self.copies}: {missing} {piece} "
                         f"piece{'s are' if missing > 1 else ' is'} missing or not read (check "
                         "that every piece lies flat inside the compartment and carries a tag)")
            kept = registered  # an incomplete tray says nothing about absent copies
        else:
            absent = [(uid, info) for uid, info in registered if uid not in same]
            elsewhere = [(uid, info) for uid, info in absent if uid in self.seen]
            if elsewhere and new:
                listed = ", ".join(f"{info} ({uid})" for uid, info in elsewhere)
                self.problem(zone, f"{count} tags here, but registered {listed} lies elsewhere "
                             f"on the table: that makes more than {self.copies} {piece} tags; "
                             "nothing new was enrolled from this compartment")
                return
            # A full compartment is the whole truth about its colour-size.
            for uid, info in absent:
                if uid not in self.seen:
                    self.drops[uid] = info
                    self.notes.append(f"{info} ({uid}) is no longer registered: the full {piece} "
                                      "compartment does not hold it")
            kept = tuple((uid, info) for uid, info in registered
                         if uid in same or uid in self.seen)
        used = {info.copy for _, info in kept}
        free = [letter for letter in COPY_LETTERS[:self.copies] if letter not in used]
        for uid in new:  # sorted: copy letters follow UID order
            if not free:
                taken = ", ".join(f"{info} ({u})" for u, info in kept)
                self.problem(zone, f"no free copy letter for tag {uid}: {taken} already "
                             f"registered and only {self.copies} copies are expected", uid)
                continue
            self.changes[uid] = TagInfo.for_piece(piece, free.pop(0))

    def result(self) -> Enrollment:
        final = {uid: info for uid, info in self.existing.items()
                 if uid not in self.drops and uid not in self.changes}
        final.update(self.changes)
        registry = Registry(final, table=self.existing.table)
        problems = sorted(self.problems, key=lambda p: (p.zone is None, p.zone or 0))
        report = EnrollReport(
            layout_name=self.layout.name,
            copies_per_kind=self.copies,
            problems=tuple(problems),
            notes=tuple(self.notes),
            assigned=tuple(sorted(self.changes.items(), key=lambda i: (i[1].sort_key(), i[0]))),
            dropped=tuple(sorted(self.drops.items(), key=lambda i: (i[1].sort_key(), i[0]))),
            pieces_registered=sum(1 for _, info in registry.items() if info.is_piece),
            pieces_expected=12 * self.copies,
            token_uid=registry.token_uid,
        )
        return Enrollment(registry, report)
