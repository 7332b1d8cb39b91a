"""Settings and view values, purity, other layouts, the animation functions."""

from __future__ import annotations

import pytest

from homeworlds.hints import (
    HintSettings,
    HintSettingsError,
    HintView,
    HintViewError,
    LiftedShip,
    Outcome,
    Renderer,
    blink_on,
    heartbeat_on,
    phase,
    pulse_level,
    render,
    renderer_for,
    spinner_head,
)
from homeworlds.rules import Piece, Sacrifice
from homeworlds.table.layout import builtin_layout

from .helpers import (
    BLUE,
    LAYOUT,
    MIDGAME_SLOTS,
    SEAT1,
    SETTINGS,
    bar,
    lit,
    midgame,
    position,
    ring,
    system,
    view,
)

P = Piece.from_text


# ---------------------------------------------------------------- settings


def test_settings_defaults_are_documented_values():
    s = HintSettings()
    assert (s.bright, s.dim, s.idle, s.bar, s.pulse_low) == (1.0, 0.2, 0.4, 0.8, 0.15)
    assert (s.blink_period, s.pulse_period, s.spin_period) == (0.4, 1.2, 1.0)
    assert (s.link_down_period, s.alert_period, s.celebrate_period) == (2.0, 1.5, 2.0)
    assert s.star_colors[2] == (0, 255, 140)      # a bluish green
    assert s.red_alert is True


def test_settings_from_mapping_reads_colours_and_round_trips():
    s = HintSettings.from_mapping({"seat_colors": ["#00A0FF", [160, 0, 255]], "dim": 0.1,
                                   "blink_period": 0.5, "red_alert": False})
    assert s.seat_colors == ((0, 160, 255), (160, 0, 255))
    assert s.dim == 0.1 and s.blink_period == 0.5 and not s.red_alert
    assert HintSettings.from_mapping(s.to_mapping()) == s
    assert s.to_mapping()["mistake_color"] == "#ff0000"


@pytest.mark.parametrize(("mapping", "message"), [
    ({"blink": 0.4}, "table.toml: hints.blink: unknown setting (the settings are alert_color"),
    ({"dim": 1.5}, "table.toml: hints.dim: must be a level from 0 to 1, not 1.5"),
    ({"dim": 0.9, "bright": 0.5}, "table.toml: hints.dim: must be below bright (0.5)"),
    ({"pulse_period": 0}, "table.toml: hints.pulse_period: must be a number of seconds above 0"),
    ({"seat_colors": ["#12345"]}, "table.toml: hints.seat_colors[0]: not a colour: '#12345'"),
    ({"seat_colors": []}, "table.toml: hints.seat_colors: must be a non-empty list of colours"),
    ({"star_colors": ["#ffffff"]}, "table.toml: hints.star_colors: must be four colours"),
    ({"mistake_color": [256, 0, 0]}, "table.toml: hints.mistake_color: not a colour: [256, 0, 0]"),
    ({"red_alert": "yes"}, "table.toml: hints.red_alert: must be true or false, not 'yes'"),
])
def test_bad_settings_are_refused_naming_file_and_key(mapping, message):
    with pytest.raises(HintSettingsError) as error:
        HintSettings.from_mapping(mapping, source="table.toml", prefix="hints.")
    assert str(error.value).startswith(message)


# ---------------------------------------------------------------- view


def test_view_is_immutable():
    v = view(active_seat=0)
    with pytest.raises(AttributeError):
        v.active_seat = 1  # type: ignore[misc]


@pytest.mark.parametrize(("fields", "message"), [
    ({"active_seat": 2}, "HintView.active_seat: no seat 2 in layout 'standard-2p' (seats 0-1)"),
    ({"mistake_slots": frozenset({14})}, "HintView.mistake_slots: no slot 14 in layout"),
    ({"system_at": {20: "Alpha"}}, "HintView.system_at: no slot 20"),
    ({"system_at": {2: 7}}, "HintView.system_at[2]: a system name is a string, not 7"),
    ({"lifted": LiftedShip(0, Piece.from_text("y1"), 15)},
     "HintView.lifted.origin_slot: no slot 15"),
    ({"lifted": LiftedShip(3, Piece.from_text("y1"), 1)}, "HintView.lifted.seat: no seat 3"),
    ({"lifted": LiftedShip(0, "y1", 1)}, "HintView.lifted.piece: a Piece (e.g. Piece.from_text"),
    ({"result": Outcome.win(5)}, "HintView.result.winners: no seat 5"),
    ({"red_alert_seat": -1}, "HintView.red_alert_seat: no seat -1"),
    ({"seat_colors": ("blue",)}, "HintView.seat_colors[0]: not a colour: 'blue'"),
])
def test_view_refuses_seats_and_slots_the_layout_does_not_have(fields, message):
    with pytest.raises(HintViewError) as error:
        view(**fields)
    assert str(error.value).startswith(message)


def test_view_helpers():
    v = view(game=midgame(), system_at=MIDGAME_SLOTS, mistake_slots={2, 3})
    assert v.mistake_slots == frozenset({2, 3})
    assert v.slot_of("alpha") == 5 and v.slot_of("Nowhere") is None
    assert v.outcome is None
    assert view(result=Outcome.draw()).outcome.is_draw


# ---------------------------------------------------------------- purity


def test_rendering_is_pure_same_input_same_frame_and_nothing_changed():
    state = midgame()
    turn = state.begin_turn()
    turn.apply(Sacrifice(P("y1"), "Alice"))
    before = (state.describe(), turn.state.describe(), turn.sacrifice_left, list(turn.actions))
    v = view(game=turn.state, turn=turn, system_at=MIDGAME_SLOTS, active_seat=0,
             lifted=LiftedShip(0, P("r1"), 5), mistake_slots=frozenset({7}))
    frames = [render(v, SETTINGS, 1.234) for _ in range(3)]
    assert frames[0] == frames[1] == frames[2]
    assert (state.describe(), turn.state.describe(), turn.sacrifice_left,
            list(turn.actions)) == before
    # A renderer held by the caller gives the same frames as render().
    assert Renderer(LAYOUT, SETTINGS).render(v, 1.234) == frames[0]
    assert renderer_for(LAYOUT, SETTINGS) is renderer_for(LAYOUT, HintSettings())


def test_renderer_refuses_a_view_of_another_layout():
    other = builtin_layout("four-seat")
    with pytest.raises(ValueError, match="built for layout 'standard-2p'"):
        Renderer(LAYOUT).render(HintView(other), 0.0)


# ---------------------------------------------------------------- other layouts


def test_four_seat_table():
    layout = builtin_layout("four-seat")
    state = position(system("South", "b1y2", "g3", "", "", "", home_of=0),
                     system("West", "r1g2", "", "b3", "", "", home_of=1),
                     system("North", "y1b2", "", "", "g3", "", home_of=2),
                     system("East", "g1r2", "", "", "", "y3", home_of=3),
                     rules="good-evil", players=4)
    slots = {2: "South", 10: "West", 17: "North", 5: "East"}
    frame = render(HintView(layout, game=state, system_at=slots, active_seat=2,
                            lifted=LiftedShip(2, P("g3"), 17)), SETTINGS, 0.0)
    assert len(frame) == 352
    assert bar(frame, 2, layout) == (lit(SETTINGS.seat_colors[2], SETTINGS.bar),) * 8
    assert bar(frame, 0, layout) == bar(frame, 1, layout) == bar(frame, 3, layout) \
        == ((0, 0, 0),) * 8
    # North (sizes 1, 2) has yellow: no other home is connected, empty slots are.
    assert ring(frame, 0, layout) == tuple(lit((255, 255, 255), 1.0) if i % 2 == 0
                                           else (0, 0, 0) for i in range(16))
    assert ring(frame, 2, layout)[0] == lit(BLUE, SETTINGS.idle)
    assert ring(frame, 10, layout)[7] == lit(SETTINGS.seat_colors[1], SETTINGS.idle)


# ---------------------------------------------------------------- animation functions


def test_animation_functions_are_periodic_functions_of_time():
    assert phase(2.5, 1.0) == 0.5 and phase(-0.25, 1.0) == 0.75
    assert blink_on(0.0, 0.4) and not blink_on(0.2, 0.4) and blink_on(0.4, 0.4)
    assert pulse_level(0.0, 1.2, 0.1, 0.9) == pytest.approx(0.1)
    assert pulse_level(0.6, 1.2, 0.1, 0.9) == pytest.approx(0.9)
    assert pulse_level(0.3, 1.2, 0.1, 0.9) == pytest.approx(0.5)
    assert [heartbeat_on(t / 10 * 1.5 + 0.01, 1.5) for t in range(10)] == \
        [True, False, True, False, False, False, False, False, False, False]
    assert [spinner_head(t / 4, 1.0, 16) for t in range(5)] == [0, 4, 8, 12, 0]


def test_frames_differ_only_where_something_animates():
    # Idle rings and the turn bar are steady: two moments give the same frame.
    v = view(game=position(system("Alice", "b1y2", "g3", "", home_of=0),
                           system("Bob", "r1g3", "", "b3", home_of=1)),
             system_at={3: "Alice", 10: "Bob"}, active_seat=1)
    assert render(v, SETTINGS, 0.0) == render(v, SETTINGS, 0.77)
    assert bar(render(v, SETTINGS, 0.77), 1) == (lit(SEAT1, SETTINGS.bar),) * 8
