"""The live page's analysis panel: a script of its own (docs/analysis.md).

The live page's script hands every snapshot and every ``analysis`` event on as window
events (``hw-snapshot``, ``hw-analysis``); this script keeps the latest of each and shows
the analysis only beside the turn it belongs to (same game, same turn number): who is
winning (both players' chances and a meter), the threats in words, the computer's
suggested turn (or that it is hidden in tournament mode), and the systems a threat is
about marked on the map (a red glow; amber for an overpopulation one piece away). Every
text is set as text, never as markup; styles are set through the CSSOM (the page's
content security policy allows no inline style).
"""

from __future__ import annotations

from homeworlds.web import kit

ANALYSIS_JS = r"""
(function () {
  'use strict';
  let snap = null;
  let analysis = null;
  const $ = (id) => document.getElementById(id);

  function make(tag, id, text) {
    const el = document.createElement(tag);
    if (id) el.id = id;
    if (text !== undefined) el.textContent = text;
    return el;
  }

  function panel() {
    let box = $('analysis-box');
    if (box) return box;
    box = make('section', 'analysis-box');
    box.hidden = true;
    box.setAttribute('aria-live', 'polite');
    box.append(make('h2', null, 'Analysis'));
    const win = make('p', 'win-line');
    box.append(win);
    box.append(make('ul', 'threats'));
    box.append(make('p', 'suggested'));
    const aside = document.querySelector('main aside') || document.body;
    aside.prepend(box);
    return box;
  }

  function percent(p) { return Math.round(p * 100) + '%'; }

  function mark(name, colour) {
    for (const g of document.querySelectorAll('#map [data-system]')) {
      if (g.getAttribute('data-system') === name) {
        g.style.filter = 'drop-shadow(0 0 10px ' + colour + ')';
        g.dataset.threat = 'true';
      }
    }
  }

  function render() {
    const box = panel();
    const a = analysis;
    const g = snap && snap.game;
    const matches = !!(a && g && !g.result && g.uid === a.game_uid &&
                       g.turn_number === a.turn_number);
    box.hidden = !matches;
    box.dataset.turnNumber = matches ? a.turn_number : '';
    if (!matches) return;
    const players = g.players;
    const win = $('win-line');
    win.replaceChildren();
    win.append(make('span', 'win-0', players[0] + ' ' + percent(a.win[0])));
    const meter = make('meter', 'win-meter');
    meter.min = 0; meter.max = 1; meter.value = a.win[0];
    meter.setAttribute('aria-label', 'chance that ' + players[0] + ' wins');
    win.append(' ', meter, ' ');
    win.append(make('span', 'win-1', percent(a.win[1]) + ' ' + players[1]));
    win.title = 'chances to win, from the computer\'s evaluation calibrated on real games';
    const list = $('threats');
    list.replaceChildren();
    for (const t of a.threats) {
      const li = make('li', null, t.words);
      li.className = 'threat ' + t.kind;
      list.append(li);
      const colour = t.kind === 'overpopulation' ? '#ffb000' : '#ff4040';
      for (const name of t.systems) mark(name, colour);
    }
    if (!a.threats.length) {
      const li = make('li', null, 'no threats');
      li.className = 'none';
      list.append(li);
    }
    const suggested = $('suggested');
    if (a.hidden) {
      suggested.textContent = 'The computer\'s suggestion is hidden (tournament mode).';
    } else if (a.suggested) {
      suggested.textContent = 'The computer suggests for ' + players[a.suggested.seat] +
        ': ' + a.suggested.turn;
    } else {
      suggested.textContent = '';
    }
  }

  window.addEventListener('hw-snapshot', (e) => { snap = e.detail; render(); });
  window.addEventListener('hw-analysis', (e) => { analysis = e.detail; render(); });
})();
"""

ANALYSIS_SCRIPT = kit.Asset.js("/static/analysis.js", ANALYSIS_JS)
