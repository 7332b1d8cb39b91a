"""The rulebook's own sentence behind a mistake, on the live page (docs/rules.md, "The rule
behind a mistake"): a piece placed illegally mid-turn is named with the rule it breaks."""

from __future__ import annotations

from homeworlds.feed import event_from_json
from homeworlds.rules import Piece
from tests.web.live_table import LiveTable


def test_a_mistake_shows_the_rule_it_breaks_in_the_rulebooks_words(page, screenshot_dir):
    with LiveTable() as table:
        page.goto(table.url + "/")
        page.wait_for_function("() => document.body.dataset.seq !== '0'")
        for _ in range(4):  # setups, Build G1 Aaron, Build R1 MatrixFrog
            table.play_turn()
        sim = table.sim
        aaron = sim.driver.slot("Aaron")
        # Aaron builds a blue ship at home, but has no blue ship of his own there.
        sim.table.place(sim.table.take_from_bank(Piece.from_text("b1")),
                        sim.layout.ship_zone(aaron, 0))
        sim.settle()
        sim.session.tick()
        rule = page.locator("#hints li.rule")
        rule.wait_for()
        assert rule.inner_text() == (
            "Rule: “The color of your new ship must be the same as one of the ships you "
            "control in the system where the new ship is being Built.” — Looney Labs' "
            "rules, GREEN")
        mistake = page.locator("#hints li.mistake").first.inner_text()
        assert "you need a blue ship of your own at Aaron" in mistake
        snapshot = table.producer.latest
        assert snapshot.hints.rule["rule"] == "build-colour"
        assert event_from_json(snapshot.to_json()) == snapshot  # the feed carries it
        page.screenshot(path=str(screenshot_dir / "live-rule.png"))


class _Screen:
    """The live screen's seams LiveView uses, keeping the last picture."""

    def __init__(self):
        self.picture = None

    def add_status(self, source):
        pass

    def log_lines(self):
        return ()

    def show(self, picture):
        self.picture = picture


def test_the_terminal_shows_the_rule_at_80_by_24():
    from types import SimpleNamespace

    from homeworlds.display.fit import fit
    from homeworlds.runtime.terminal import LiveView

    with LiveTable() as table:
        for _ in range(4):
            table.play_turn()
        sim = table.sim
        sim.table.place(sim.table.take_from_bank(Piece.from_text("b1")),
                        sim.layout.ship_zone(sim.driver.slot("Aaron"), 0))
        sim.settle()
        sim.session.tick()
        screen = _Screen()
        config = SimpleNamespace(layout=sim.layout, players=table.game.players,
                                 rules=sim.rules)
        LiveView(screen, config, None).tick(sim.session)
        text = " ".join(fit(screen.picture, 80, 24).plain().split())
        assert "you need a blue ship of your own at Aaron" in text
        assert ("Rule: “The color of your new ship must be the same as one of the ships you "
                "control in the system where the new ship is being Built.” — Looney Labs' "
                "rules, GREEN") in text
