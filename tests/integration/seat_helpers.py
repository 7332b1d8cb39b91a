"""A simulated person at the table who follows the LEDs' guidance (shared by the tests of
the computer as a seat)."""

from __future__ import annotations

import time

from homeworlds.hints.animation import scale
from homeworlds.sim import TableDriver, carry_out


def wait_for(sim, predicate, what, timeout=30.0):
    """Pump the host until ``predicate()`` (the computer thinks in its thread meanwhile)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}; status: "
                                 f"{sim.session.status.message!r}, notices: "
                                 f"{list(sim.session.notices)[-5:]}")
        for event in sim.link.poll(0.005):
            sim.session.handle(event)
        sim.session.tick()


def shown(sim):
    return sim.session.guidance_shown()


def in_step(sim):
    """The host has seen and judged the table as it lies (a tag the simulated readers
    missed for a moment looks like a lifted piece until it is read again)."""
    return sim.host.in_step() and sim.session.judged


def wait_for_step(sim, suggestion=False):
    """Wait until the computer has chosen and the lights show a step; return it."""
    wait_for(sim, lambda: (g := shown(sim)) is not None and g.phase == "guiding"
             and g.suggestion == suggestion and in_step(sim), "a guided step")
    return shown(sim)


def ring(sim, slot, frame):
    return [frame[i] for i in sim.layout.slots[slot].ring]


def bar(sim, seat, frame):
    return [frame[i] for i in sim.layout.seats[seat].bar]


def check_lights(sim, step):
    """The LED frame lights what the step names: the piece to lift in its colour (as many
    marks as its size), the destination, the bar of the seat that takes the token."""
    settings = sim.session.lights.renderer.settings
    # In the off half of the blink: a correction's slot blinks red in the on half.
    frame = sim.session.render(settings.blink_period * 0.75)
    if step.lift_slot is not None:
        color = scale(settings.star_colors[int(step.piece.color)], settings.bright)
        lit = ring(sim, step.lift_slot, frame)
        marks = sum(1 for i, c in enumerate(lit) if c == color and lit[i - 1] != color)
        assert marks == int(step.piece.size), (step.text, lit, sim.session.status,
                                               sim.session.hint_view().mistake_slots)
    if step.put_slot is not None:
        assert any(c != (0, 0, 0) for c in ring(sim, step.put_slot, frame)), step.text
    if step.token_seat is not None:
        frames = [sim.session.render(t / 10) for t in range(10)]
        assert any(any(c != (0, 0, 0) for c in bar(sim, step.token_seat, f)) for f in frames)


def zone_of(sim, place):
    if place["kind"] == "star":
        return sim.layout.slots[place["slot"]].star_zone
    return sim.layout.ship_zone(place["slot"], place["seat"])


def uid_on(sim, zone, piece):
    for uid in sim.table.tags_on(zone):
        info = sim.registry.lookup(uid)
        if info is not None and info.is_piece and info.piece == piece:
            return uid
    raise AssertionError(f"no {piece} on zone {zone}")


def held_uid(sim, piece):
    for uid in sim.table.in_hand():
        if sim.registry.lookup(uid).piece == piece:
            return uid
    raise AssertionError(f"no {piece} in hand")


def do_step(sim, step):
    """Carry the step out on the simulated table, as the lights and words say."""
    carry_out(sim.table, step.detail["current"])


def follow(sim, *, max_steps=40, before_each=None):
    """Follow the computer's guidance until its turn is committed; returns the steps'
    words in order."""
    committed = len(sim.session.tracker.record)
    words = []
    for _ in range(max_steps):
        wait_for(sim, lambda: len(sim.session.tracker.record) > committed or (
            (g := shown(sim)) is not None and g.phase == "guiding" and in_step(sim)),
            "a step or the commit")
        if len(sim.session.tracker.record) > committed:
            return words
        step = shown(sim)
        check_lights(sim, step)
        words.append(step.text)
        if before_each is not None:
            before_each(step)
            continue
        do_step(sim, step)
        sim.settle()
    raise AssertionError(f"the turn was not committed after {max_steps} steps: {words}")


def resync_driver(sim):
    """After the computer's turn (laid by hand), the driver takes the committed position."""
    session = sim.session
    slot_of = session.tracker.slot_of_system(session.observation)
    sim.driver = TableDriver(sim.table, session.tracker.state, slot_of)
