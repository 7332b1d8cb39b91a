"""The layout as a spectator sees it, in Chromium, on the archive's largest positions (a
two-player game of 13 systems and a four-player one of 15, tests/data/games/layout): at
1920x1080 and on a 390x844 phone, in the archive viewer and on the live page, no two cards
overlap, no text overlaps another, every label of the map is at least 14 px, and everything
lies inside the viewport (on a phone: inside its width, the page scrolling down). The
screenshots in docs/images are made here."""

from __future__ import annotations

from pathlib import Path

import pytest

from homeworlds.display.steps import load_game_file
from homeworlds.feed import FeedHub, GameInfo, Hints, SnapshotEvent, bank_counts
from homeworlds.store.records import cooked_position, position_to_json, turn_to_sdg
from tests.web.conftest import FULL_HD, PHONE
from tests.web.pixels import assert_not_blank

pytest.importorskip("starlette")

LAYOUT = Path(__file__).resolve().parents[1] / "data" / "games" / "layout"
TWO = LAYOUT / "26110.raw"  # 13 systems after turn 65
FOUR = LAYOUT / "36396.raw"  # 15 systems after turn 116
MIN_LABEL_PX = 14

#: What a spectator would call a broken layout, as a list of problems (empty: none).
CHECK_JS = """(args) => {
  const [minPx, phone] = args;
  const problems = [];
  const W = window.innerWidth, H = window.innerHeight;
  const box = (el) => el.getBoundingClientRect();
  const visible = (el) => { const r = box(el); return r.width > 0 && r.height > 0; };
  const overlap = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 &&
                            Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1;
  const svg = document.querySelector('#map svg');
  if (!svg) return ['no map'];
  const texts = Array.from(svg.querySelectorAll('text')).filter(
    (t) => visible(t) && t.textContent.trim() && getComputedStyle(t).display !== 'none');
  for (const t of texts) {
    const px = parseFloat(t.getAttribute('font-size')) * t.getScreenCTM().a;
    if (px < minPx - 0.01) problems.push('label "' + t.textContent + '" is ' +
                                         px.toFixed(1) + ' px');
  }
  const cards = Array.from(svg.querySelectorAll('g.system > rect.card'));
  for (let i = 0; i < cards.length; i++) {
    for (let j = i + 1; j < cards.length; j++) {
      if (overlap(box(cards[i]), box(cards[j]))) problems.push('cards overlap: ' +
        cards[i].parentNode.dataset.system + ' and ' + cards[j].parentNode.dataset.system);
    }
  }
  for (let i = 0; i < texts.length; i++) {
    for (let j = i + 1; j < texts.length; j++) {
      if (overlap(box(texts[i]), box(texts[j]))) problems.push('texts overlap: "' +
        texts[i].textContent + '" and "' + texts[j].textContent + '"');
    }
  }
  // A card's texts stay on the card.
  for (const card of cards) {
    const c = box(card);
    for (const t of card.parentNode.querySelectorAll('text')) {
      const r = box(t);
      if (r.left < c.left - 1 || r.right > c.right + 1) problems.push(
        'text "' + t.textContent + '" sticks out of its card');
    }
  }
  // Everything inside the viewport (a phone scrolls down, never sideways).
  const all = [...cards, ...texts, ...document.querySelectorAll(
    'header, main, aside > section:not([hidden]), #map, .stepper, #caption, #story')];
  for (const el of all) {
    if (!visible(el)) continue;
    const r = box(el);
    const bottom = phone ? Infinity : H;
    if (r.left < -1 || r.right > W + 1 || r.top + window.scrollY < -1 ||
        r.bottom + window.scrollY > (phone ? document.documentElement.scrollHeight + 1
                                            : bottom + 1)) {
      problems.push((el.id || el.tagName + '.' + el.getAttribute('class') || el.tagName) +
                    ' lies outside the viewport');
    }
  }
  if (document.documentElement.scrollWidth > W) problems.push('the page scrolls sideways');
  if (!phone && document.documentElement.scrollHeight > H) problems.push(
    'the page is taller than the screen: ' + document.documentElement.scrollHeight);
  // The panels of the page do not overlap one another.
  const panels = Array.from(document.querySelectorAll(
    'header, #result:not([hidden]), #story:not([hidden]), #map, aside > section:not([hidden]), ' +
    '.stepper, #caption')).filter(visible);
  for (let i = 0; i < panels.length; i++) {
    for (let j = i + 1; j < panels.length; j++) {
      if (overlap(box(panels[i]), box(panels[j]))) problems.push('panels overlap: ' +
        (panels[i].id || panels[i].tagName) + ' and ' + (panels[j].id || panels[j].tagName));
    }
  }
  return problems;
}"""


def _check(page, phone: bool, what: str) -> None:
    problems = page.evaluate(CHECK_JS, [MIN_LABEL_PX, phone])
    assert not problems, f"{what}: " + "; ".join(problems[:12])


@pytest.fixture
def viewer(live_server):
    from homeworlds.commands.archive_view import build_app

    return live_server(build_app(None, [str(TWO), str(FOUR)]))


@pytest.mark.parametrize("viewport, name", [(FULL_HD, "screen"), (PHONE, "phone")])
@pytest.mark.parametrize("file_index, step, systems", [(0, 65, 13), (1, 116, 15)])
def test_the_archives_largest_positions_fit_and_read(browser, viewer, viewport, name,
                                                     file_index, step, systems,
                                                     screenshot_dir):
    context = browser.new_context(viewport=viewport)
    try:
        page = context.new_page()
        page.goto(f"{viewer.url}/archive/file/{file_index}?turn={step}")
        page.wait_for_selector(f'body[data-step="{step}"][data-shape]')
        assert page.locator("#map g.system").count() == systems
        shot = page.screenshot(path=str(screenshot_dir / f"layout-archive-{systems}-{name}.png"),
                               full_page=viewport is PHONE)
        assert_not_blank(shot, f"the archive at {systems} systems on a {name}")
        _check(page, viewport is PHONE, f"archive file {file_index} step {step} ({name})")
    finally:
        context.close()


def _snapshot(path: Path, step: int) -> SnapshotEvent:
    game = load_game_file(path)
    state = game.steps[step].state
    log = tuple(s.text for s in game.steps[1:step + 1])
    seats = tuple(s.seat for s in game.steps[1:step + 1])
    last = game.steps[step]
    before = cooked_position(position_to_json(game.steps[step - 1].state)) or ""
    info = GameInfo("layout", "sdg", game.players, 0, state.to_move, step + 1, None, False)
    return SnapshotEvent("club-table", 1, 1.7e9, info,
                         cooked_position(position_to_json(state)) or "", bank_counts(state),
                         log, Hints(), True, None, (), turn_seats=seats,
                         last_turn={"number": step, "seat": last.seat, "before": before,
                                    "sdg": turn_to_sdg(last.actions, game.players)})


@pytest.mark.parametrize("viewport, name", [(FULL_HD, "screen"), (PHONE, "phone")])
def test_the_live_page_of_the_largest_two_player_position_fits_and_reads(
        browser, live_server, viewport, name, screenshot_dir):
    from homeworlds.web.app import DisplayState, create_app

    hub = FeedHub()
    hub.publish(_snapshot(TWO, 65))
    server = live_server(create_app(DisplayState(hub, None, "token", "club-table")))
    context = browser.new_context(viewport=viewport)
    try:
        page = context.new_page()
        page.goto(server.url + "/")
        page.wait_for_function("() => document.querySelectorAll('#map g.system').length")
        assert page.locator("#map g.system").count() == 13
        assert page.locator("#map g.system.touched").count() >= 1
        assert page.locator("#story").inner_text().startswith("Last turn: ")
        _check(page, viewport is PHONE, f"the live page ({name})")
        # Connections of the systems away from the last turn are not drawn: no tangle.
        shown = page.locator("#map line.connection:not(.quiet)").count()
        assert shown < page.locator("#map line.connection").count()
        shot = page.screenshot(path=str(screenshot_dir / f"layout-live-13-{name}.png"),
                               full_page=viewport is PHONE)
        assert_not_blank(shot, f"the live page at 13 systems on a {name}")
    finally:
        context.close()


def test_the_admin_page_on_a_phone_has_44_px_targets_and_shows_the_settings(
        browser, live_server, screenshot_dir):
    from homeworlds.web.app import DisplayState, create_app
    from tests.web.test_app_http import TOKEN, _Table

    table = _Table()
    try:
        server = live_server(create_app(DisplayState(table.hub, table.queue, TOKEN, "club")))
        context = browser.new_context(viewport=PHONE)
        try:
            page = context.new_page()
            page.goto(f"{server.url}/admin?token={TOKEN}")
            assert page.locator("#current-hint-level").inner_text() == "full"
            small = page.evaluate("""() => Array.from(document.querySelectorAll(
                'button, select, input:not([type=hidden]), a')).map(e => [e.id || e.textContent,
                e.getBoundingClientRect().height]).filter(([_, h]) => h < 44)""")
            assert not small, f"targets under 44 px: {small}"
            assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
            page.screenshot(path=str(screenshot_dir / "admin-phone.png"), full_page=True)
            page.select_option("#resign-seat", "1")
            page.click("#do-resign")
            assert page.locator("#question").inner_text() == "Resign the game for Bob?"
            page.click("#cancel")
            page.locator("#do-undo").wait_for()
            assert not table.session.tracker.is_over
        finally:
            context.close()
    finally:
        table.close()


def test_the_stands_attract_page_fits_with_its_welcome(browser, live_server, screenshot_dir):
    """The stand's replays at 1920x1080: the caption and the welcome ("what is Homeworlds,
    how to watch, come and play") inside the screen, nothing overlapping, every label at
    least 14 px."""
    from homeworlds.commands.archive_view import build_app

    server = live_server(build_app(None, [str(TWO)], attract_after_s=0.01))
    context = browser.new_context(viewport=FULL_HD)
    try:
        page = context.new_page()
        page.goto(server.url + "/attract")
        page.wait_for_selector('body[data-active="yes"]')
        page.wait_for_function("() => document.querySelector('#map svg') && "
                               "document.getElementById('caption').textContent")
        intro = page.locator("#intro").inner_text()
        for heading in ("What is Homeworlds?", "How to watch", "Come and play"):
            assert heading in intro
        page.screenshot(path=str(screenshot_dir / "attract-stand.png"))
        problems = page.evaluate("""() => {
          const out = [];
          for (const id of ['caption', 'intro', 'map']) {
            const r = document.getElementById(id).getBoundingClientRect();
            if (r.left < 0 || r.top < 0 || r.right > innerWidth + 1 ||
                r.bottom > innerHeight + 1) out.push(id + ' outside the screen');
          }
          const a = document.getElementById('replay').getBoundingClientRect();
          const b = document.getElementById('intro').getBoundingClientRect();
          if (Math.min(a.right, b.right) > Math.max(a.left, b.left) + 1) out.push('overlap');
          const px = parseFloat(getComputedStyle(document.getElementById('caption')).fontSize);
          if (px < 14) out.push('caption ' + px + ' px');
          return out;
        }""")
        assert not problems, problems
    finally:
        context.close()
