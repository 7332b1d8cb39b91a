"""The live page's analysis panel in Chromium (docs/analysis.md): who is winning, the
threats, the computer's suggestion or that it is hidden in tournament mode."""

from __future__ import annotations

import pytest

from tests.web.live_table import LiveTable

PANEL_JS = """() => {
  const box = document.getElementById('analysis-box');
  return box && {hidden: box.hidden, turn: box.dataset.turnNumber,
    win0: document.getElementById('win-0')?.textContent,
    win1: document.getElementById('win-1')?.textContent,
    meter: Number(document.getElementById('win-meter')?.value),
    threats: Array.from(document.querySelectorAll('#threats li')).map(li => li.textContent),
    suggested: document.getElementById('suggested').textContent,
    marked: Array.from(document.querySelectorAll('#map [data-threat]'))
      .map(g => g.dataset.system)};
}"""


class AnalysedTable(LiveTable):
    server_options = {"analysis": True}


class TournamentTable(LiveTable):
    server_options = {"analysis": True, "suggestions": False}


def _panel_for(page, number: int) -> dict:
    page.wait_for_function(
        "(n) => { const b = document.getElementById('analysis-box');"
        " return b && !b.hidden && b.dataset.turnNumber === String(n); }",
        arg=number, timeout=30_000)
    return page.evaluate(PANEL_JS)


@pytest.mark.parametrize("table_class", [AnalysedTable, TournamentTable])
def test_the_panel_shows_who_is_winning_beside_its_own_turn(table_class, page,
                                                           screenshot_dir):
    with table_class() as table:
        page.goto(table.url + "/")
        page.wait_for_function("() => document.body.dataset.seq !== '0'")
        # During setup there is nothing to analyse: the panel stays hidden.
        table.play_turn()
        assert page.evaluate(PANEL_JS)["hidden"]
        for _ in range(7):
            committed = table.play_turn()
        panel = _panel_for(page, committed + 1)
        players = table.game.players
        first, second = panel["win0"], panel["win1"]
        assert first.startswith(players[0] + " ") and second.endswith(" " + players[1])
        p0, p1 = int(first.rsplit(" ", 1)[1].rstrip("%")), int(second.split(" ")[0].rstrip("%"))
        assert p0 + p1 in (99, 100, 101)
        assert abs(panel["meter"] * 100 - p0) <= 1
        assert panel["threats"]  # threats in words, or "no threats"
        if table_class is TournamentTable:
            assert panel["suggested"] == ("The computer's suggestion is hidden "
                                          "(tournament mode).")
        else:
            mover = players[table.sim.session.tracker.state.to_move]
            assert panel["suggested"].startswith(f"The computer suggests for {mover}: ")
            page.screenshot(path=str(screenshot_dir / "live-analysis.png"))
        # A turn in progress keeps the analysis of the committed position; the next
        # commit brings the next one.
        committed = table.play_turn()
        assert _panel_for(page, committed + 1)["turn"] == str(committed + 1)
