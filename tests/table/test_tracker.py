"""The turn tracker on hand-laid tables (the simulator drives it over serial elsewhere)."""

from __future__ import annotations

from homeworlds.rules import Build, Homeworld, Piece, preset
from homeworlds.table.layout import builtin_layout
from homeworlds.table.registry import Registry, TagInfo
from homeworlds.table.tracker import TurnTracker
from homeworlds.table.view import TableView

LAYOUT = builtin_layout("standard-2p")


def _registry() -> Registry:
    tags = {}
    n = 0
    for color in "rygb":
        for size in "123":
            for copy in "abc":
                tags[f"E0040150{n:08X}"] = TagInfo.for_piece(Piece.from_text(color + size), copy)
                n += 1
    tags["E004015099999999"] = TagInfo.token()
    return Registry(tags)


REGISTRY = _registry()
TOKEN = REGISTRY.token_uid


def uid(piece: str, copy: str = "a") -> str:
    return REGISTRY.uid_of(TagInfo.for_piece(Piece.from_text(piece), copy))


class Table:
    """A hand-laid table: zones with tags; the rest lies in the bank tray."""

    def __init__(self):
        self.zones: dict[int, set[str]] = {z: set() for z in LAYOUT.all_zones}
        for info_uid, info in REGISTRY.items():
            if info.piece is not None:
                self.zones[LAYOUT.bank_zone(info.piece)].add(info_uid)
        self.zones[LAYOUT.token_zone(0)].add(TOKEN)
        self.view = TableView(LAYOUT, REGISTRY)

    def put(self, tag: str, zone: int) -> None:
        for tags in self.zones.values():
            tags.discard(tag)
        self.zones[zone].add(tag)

    def star(self, slot: int, piece: str, copy: str = "a") -> None:
        self.put(uid(piece, copy), LAYOUT.slots[slot].star_zone)

    def ship(self, slot: int, seat: int, piece: str, copy: str = "a") -> None:
        self.put(uid(piece, copy), LAYOUT.ship_zone(slot, seat))

    def token(self, seat: int) -> None:
        self.put(TOKEN, LAYOUT.token_zone(seat))

    def observe(self):
        self.view.replace_all(self.zones)
        return self.view.observe()


def _set_up(table: Table, tracker: TurnTracker) -> None:
    table.star(3, "y1")
    table.star(3, "b2")
    table.ship(3, 0, "g3")
    table.token(1)
    status = tracker.update(table.observe())
    assert status.phase == "setup" and status.active_seat == 1, status
    table.star(10, "r1")
    table.star(10, "y2")
    table.ship(10, 1, "g3", "b")
    table.token(0)
    status = tracker.update(table.observe())
    assert status.phase == "playing" and status.active_seat == 0, status


def test_setup_then_a_build_is_inferred_and_recorded():
    table = Table()
    tracker = TurnTracker(LAYOUT, preset("looney"), ("Ann", "Bob"))
    _set_up(table, tracker)
    assert tracker.record[0] == (0, (Homeworld((Piece.from_text("y1"), Piece.from_text("b2")),
                                               Piece.from_text("g3"), "Ann"),))
    table.ship(3, 0, "g1")
    assert tracker.update(table.observe()).mistake_slots == frozenset()
    table.token(1)
    status = tracker.update(table.observe())
    assert status.active_seat == 1 and status.phase == "playing"
    assert tracker.record[-1] == (0, (Build(Piece.from_text("g1"), "Ann"),))


def test_illegal_build_is_refused_naming_the_slot_and_position_kept():
    table = Table()
    tracker = TurnTracker(LAYOUT, preset("looney"), ("Ann", "Bob"))
    _set_up(table, tracker)
    before = tracker.state.describe()
    table.ship(3, 0, "g2")  # g1 is still in the bank
    status = tracker.update(table.observe())
    assert status.mistake_slots == frozenset({3})
    table.token(1)
    status = tracker.update(table.observe())
    assert status.phase == "handover-refused" and status.refused_seat == 0
    assert status.mistake_slots == frozenset({3})
    assert tracker.state.describe() == before and len(tracker.record) == 2
    # Fixing the table while the token lies on the next pad commits the turn.
    table.put(uid("g2"), LAYOUT.bank_zone(Piece.from_text("g2")))
    table.ship(3, 0, "g1")
    status = tracker.update(table.observe())
    assert status.phase == "playing" and status.active_seat == 1
    assert tracker.record[-1][1] == (Build(Piece.from_text("g1"), "Ann"),)


def test_a_system_may_move_to_another_slot_between_turns():
    table = Table()
    tracker = TurnTracker(LAYOUT, preset("looney"), ("Ann", "Bob"))
    _set_up(table, tracker)
    # Ann's whole home moves from slot 3 to slot 5, then she builds there.
    table.star(5, "y1")
    table.star(5, "b2")
    table.ship(5, 0, "g3")
    table.ship(5, 0, "g1")
    table.token(1)
    tracker.update(table.observe())
    assert tracker.record[-1][1] == (Build(Piece.from_text("g1"), "Ann"),)


def test_piece_in_hand_blocks_the_hand_over():
    table = Table()
    tracker = TurnTracker(LAYOUT, preset("looney"), ("Ann", "Bob"))
    _set_up(table, tracker)
    for tags in table.zones.values():
        tags.discard(uid("g1"))  # lifted from the bank, not placed yet
    table.token(1)
    status = tracker.update(table.observe())
    assert status.phase == "handover-refused" and "in hand" in status.message


def test_systems_discovered_twice_in_one_turn_get_consistent_names():
    from homeworlds.rules import Discover, GameState, Sacrifice
    from homeworlds.rules import preset as _preset

    tracker = TurnTracker(LAYOUT, _preset("looney"), ("Ann", "Bob"))
    tracker.state = GameState(_preset("looney"))
    turn = (Sacrifice(Piece.from_text("y2"), "Ann"),
            Discover(Piece.from_text("g3"), "Ann", Piece.from_text("b3"), "New1"),
            Discover(Piece.from_text("g3"), "New1", Piece.from_text("r1"), "New2"))
    renamed = tracker._rename_discoveries(turn)
    assert renamed[1].name == renamed[2].origin != "New1"
    assert renamed[2].name not in ("New1", "New2", renamed[1].name)


def _build_turns(table: Table, tracker: TurnTracker) -> None:
    """After setup: Ann and Bob each build a g1 at home."""
    table.ship(3, 0, "g1", "a")
    table.token(1)
    tracker.update(table.observe())
    table.ship(10, 1, "g1", "b")
    table.token(0)
    status = tracker.update(table.observe())
    assert status.phase == "playing" and status.active_seat == 0 and len(tracker.record) == 4


def _sacrifice_and_three_builds(table: Table, tracker: TurnTracker, *, steps: bool) -> object:
    """Ann sacrifices her g3 and builds g1, g2, g2 at home; with ``steps`` the table
    settles after each action."""
    actions = [lambda: table.put(uid("g3"), LAYOUT.bank_zone(Piece.from_text("g3"))),
               lambda: table.ship(3, 0, "g1", "c"),
               lambda: table.ship(3, 0, "g2", "a"),
               lambda: table.ship(3, 0, "g2", "b")]
    for act in actions:
        act()
        if steps:
            status = tracker.update(table.observe())
            assert status.mistake_slots == frozenset(), status
    table.token(1)
    return tracker.update(table.observe())


def test_a_turn_beyond_the_search_budget_is_refused_asking_for_steps(monkeypatch):
    from homeworlds.rules import inference
    from homeworlds.table.tracker import TOO_INTRICATE

    table = Table()
    tracker = TurnTracker(LAYOUT, preset("looney"), ("Ann", "Bob"))
    _set_up(table, tracker)
    _build_turns(table, tracker)
    monkeypatch.setattr(inference, "NODE_BUDGET", 1)
    status = _sacrifice_and_three_builds(table, tracker, steps=False)
    assert status.phase == "handover-refused" and status.message == TOO_INTRICATE
    assert status.mistake_slots == frozenset() and len(tracker.record) == 4
    # With the budget back the same table commits (nothing was lost meanwhile).
    monkeypatch.setattr(inference, "NODE_BUDGET", 2_000)
    status = tracker.update(table.observe())
    assert status.phase == "playing" and status.active_seat == 1
    assert [type(a).__name__ for a in tracker.record[-1][1]] == ["Sacrifice"] + ["Build"] * 3


def test_played_in_steps_the_same_turn_fits_the_budget(monkeypatch):
    from homeworlds.rules import inference

    table = Table()
    tracker = TurnTracker(LAYOUT, preset("looney"), ("Ann", "Bob"))
    _set_up(table, tracker)
    _build_turns(table, tracker)
    # A budget below what the whole turn needs from its start ...
    trial = Table()
    trial.zones = {z: set(tags) for z, tags in table.zones.items()}
    probe = TurnTracker(LAYOUT, preset("looney"), ("Ann", "Bob"))
    probe.resume(tracker.record)
    probe.update(trial.observe())
    for act in (lambda: trial.put(uid("g3"), LAYOUT.bank_zone(Piece.from_text("g3"))),
                lambda: trial.ship(3, 0, "g1", "c"), lambda: trial.ship(3, 0, "g2", "a"),
                lambda: trial.ship(3, 0, "g2", "b")):
        act()
    whole = inference.infer_turn(probe.state, probe._observed_systems(
        trial.observe(), restore_in_hand=False))
    assert whole.found
    monkeypatch.setattr(inference, "NODE_BUDGET", whole.nodes - 1)
    # ... is enough when the table settles after each action.
    status = _sacrifice_and_three_builds(table, tracker, steps=True)
    assert status.phase == "playing" and status.active_seat == 1, status
    assert [type(a).__name__ for a in tracker.record[-1][1]] == ["Sacrifice"] + ["Build"] * 3
