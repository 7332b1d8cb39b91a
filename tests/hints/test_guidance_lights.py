"""The computer's lights: its thinking bar, and each guided step on the rings."""

from __future__ import annotations

import json

from homeworlds.hints import GuidanceShown, HintSettings, HintView, render
from homeworlds.hints.animation import scale
from homeworlds.rules import Piece
from homeworlds.table.layout import builtin_layout

LAYOUT = builtin_layout("standard-2p")
SETTINGS = HintSettings()
BLACK = (0, 0, 0)


def _ring(frame, slot):
    return [frame[i] for i in LAYOUT.slots[slot].ring]


def _bar(frame, seat):
    return [frame[i] for i in LAYOUT.seats[seat].bar]


def _marks(pixels, color):
    """Runs of ``color`` round the ring."""
    return sum(1 for i, c in enumerate(pixels) if c == color and pixels[i - 1] != color)


def _shade_of(color, base):
    level = max(color) / max(base)
    return all(abs(c - b * level) <= 2 for c, b in zip(color, base, strict=True))


def _view(guidance):
    return HintView(LAYOUT, active_seat=guidance.seat, guidance=guidance)


def test_the_thinking_computers_bar_runs_a_comet_in_its_colour():
    view = _view(GuidanceShown(1, "thinking"))
    frames = [render(view, SETTINGS, t / 10) for t in range(12)]
    bars = [tuple(_bar(f, 1)) for f in frames]
    assert len(set(bars)) > 3  # it moves
    assert all(any(c != BLACK for c in bar) for bar in bars)
    violet = SETTINGS.seat_colors[1]
    assert all(_shade_of(c, violet) for bar in bars for c in bar if c != BLACK)
    assert all(_bar(f, 0) == [BLACK] * len(LAYOUT.seats[0].bar) for f in frames)


def test_the_piece_to_lift_shows_its_colour_and_its_size_as_marks():
    for size in (1, 2, 3):
        piece = Piece.from_text(f"r{size}")
        view = _view(GuidanceShown(1, "guiding", kind="move", piece=piece, lift_slot=4,
                                   put_slot=9))
        frame = render(view, SETTINGS, 0.0)
        red = scale(SETTINGS.star_colors[0], SETTINGS.bright)
        assert _marks(_ring(frame, 4), red) == size
        # The destination breathes in the guide colour (white).
        put = set(_ring(frame, 9))
        assert len(put) == 1 and put.pop() != BLACK
        frames = [_ring(render(view, SETTINGS, t / 10), 9)[0] for t in range(12)]
        assert len(set(frames)) > 3 and all(c[0] == c[1] == c[2] for c in frames)


def test_a_new_system_is_lit_in_the_new_stars_colour():
    piece = Piece.from_text("g3")
    view = _view(GuidanceShown(1, "guiding", kind="from-bank", piece=piece, put_slot=2,
                               from_bank=True, new_system=True))
    colors = {c for t in range(12) for c in _ring(render(view, SETTINGS, t / 10), 2)}
    green = SETTINGS.star_colors[2]
    assert all(c == BLACK or abs(c[1] * green[2] - c[2] * green[1]) <= 255 * 2
               and c[0] == 0 for c in colors)
    assert any(c != BLACK for c in colors)


def test_a_hint_is_marked_by_the_suggestion_colour():
    piece = Piece.from_text("y1")
    mine = _view(GuidanceShown(0, "guiding", kind="move", piece=piece, lift_slot=3,
                               put_slot=5))
    hint = _view(GuidanceShown(0, "guiding", suggestion=True, kind="move", piece=piece,
                               lift_slot=3, put_slot=5))
    cyan = scale(SETTINGS.suggestion_color, SETTINGS.bright)
    white = scale(SETTINGS.guide_color, SETTINGS.bright)
    t = SETTINGS.pulse_period / 2  # the breathing's peak
    assert set(_ring(render(hint, SETTINGS, t), 5)) == {cyan}
    assert set(_ring(render(mine, SETTINGS, t), 5)) == {white}
    assert scale(SETTINGS.suggestion_color, SETTINGS.dim) in _ring(render(hint, SETTINGS, t), 3)


def test_the_token_step_blinks_the_bar_of_the_seat_that_takes_it():
    view = _view(GuidanceShown(1, "guiding", kind="token", token_seat=0))
    on = render(view, SETTINGS, 0.0)
    off = render(view, SETTINGS, SETTINGS.blink_period * 1.5)
    assert set(_bar(on, 0)) == {scale(SETTINGS.guide_color, SETTINGS.bar)}
    assert set(_bar(off, 0)) == {BLACK}


def test_the_guidance_is_json_for_the_feed():
    shown = GuidanceShown(1, "guiding", kind="move", piece=Piece.from_text("b2"),
                          lift_slot=3, put_slot=5, text="Lift the medium blue ship …",
                          detail={"steps_left": 2})
    data = json.loads(json.dumps(_view(shown).guidance.to_json()))
    assert data == {"seat": 1, "phase": "guiding", "suggestion": False, "kind": "move",
                    "piece": "b2", "lift_slot": 3, "put_slot": 5, "from_bank": False,
                    "new_system": False, "token_seat": None,
                    "text": "Lift the medium blue ship …", "restore": False,
                    "played_from": None, "steps_left": 2}


def test_settings_know_the_guidance_keys():
    settings = HintSettings.from_mapping({"suggestions": False, "guide_color": "#ffffff",
                                          "suggestion_color": [0, 200, 255],
                                          "think_period": 2.0, "wait_period": 4.0})
    assert settings.suggestions is False and settings.wait_period == 4.0
    try:
        HintSettings.from_mapping({"suggestions": "no"}, source="t.toml", prefix="hints.")
    except ValueError as exc:
        assert str(exc) == "t.toml: hints.suggestions: must be true or false, not 'no'"
    else:
        raise AssertionError("accepted")


def test_a_seat_played_elsewhere_breathes_its_bar_while_its_turn_is_awaited():
    """Not the computer's comet: nobody at this table thinks. The seat's whole bar breathes
    slowly in its colour (``wait_period``), never dark; with a game clock only the share of
    the main time left breathes."""
    waiting = GuidanceShown(1, "thinking", text="waiting for the turn from the other table…",
                            played_from="the other table")
    frames = [render(_view(waiting), SETTINGS, t * SETTINGS.wait_period / 12)
              for t in range(12)]
    bars = [_bar(f, 1) for f in frames]
    violet = SETTINGS.seat_colors[1]
    assert all(len(set(bar)) == 1 and bar[0] != BLACK for bar in bars)  # whole bar, lit
    assert all(_shade_of(bar[0], violet) for bar in bars)
    levels = [max(bar[0]) for bar in bars]
    assert max(levels) >= max(scale(violet, SETTINGS.bar)) - 2  # up to the bar level
    assert min(levels) <= max(scale(violet, SETTINGS.pulse_low * SETTINGS.bar)) + 2
    # The computer's thinking on the same seat is the comet: part of the bar dark.
    comet = _bar(render(_view(GuidanceShown(1, "thinking")), SETTINGS, 0.3), 1)
    assert BLACK in comet and all(BLACK not in bar for bar in bars)
    # With a clock: a quarter of the main time left, a quarter of the bar breathes.
    timed = HintView(LAYOUT, active_seat=1, guidance=waiting, clock_fraction=0.25)
    bar = _bar(render(timed, SETTINGS, SETTINGS.wait_period / 2), 1)
    lit = [c for c in bar if c != BLACK]
    assert 0 < len(lit) <= -(-len(bar) // 4) and bar[:len(lit)] == lit
