"""The hub's pages for remote games (docs/remote-play.md, "Invited by the hub"): the
section of the overview that shows each game with both its tables, the admin form that
pairs two tables, and the action behind it. ``web.hub`` puts them in its pages.

What is shown comes from ``remote.hub_games.HubRemoteGames.overview`` (messages the hub
believed: signed by a side, checked, bounded) and the tables' own published games; every
text is escaped, and a count is shown only when it is a whole number in range.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from homeworlds.display.svg import esc
from homeworlds.remote.messages import MAX_TURNS
from homeworlds.rules import PRESETS

CSS = """
.remote { border: 1px solid #2c3550; border-radius: .5rem; padding: .4rem .7rem;
          margin: .4rem 0; }
.remote h3 { margin: 0 0 .2rem 0; font-size: 1rem; }
.remote .status { color: #ffd54f; }
.remote ul { margin: .2rem 0; padding-left: 1.2rem; }
"""


def _turns(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_TURNS:
        return f"{value} turns"
    return "turns unknown"


def remote_section(rows: list[dict]) -> str:
    """The overview's "Remote games": each game, its two tables, their state."""
    if not rows:
        return ""
    out = ["<h2>Remote games</h2>"]
    for row in rows[:200]:
        sides = row["sides"]
        who = " v ".join(f"{esc(s['player'])} (table {esc(s['table'])})" for s in sides)
        out.append(f'<div class="remote" data-remote="{esc(row["game"])}">'
                   f'<h3>{who}</h3><p class="status">{esc(row["status"])}</p><ul>')
        for side in sides:
            line = (f'Table <a href="/tables/{quote(side["table"], safe="")}/live">'
                    f'{esc(side["table"])}</a> ({esc(side["role"])}, plays '
                    f'{esc(side["player"])}): {esc(side["state"])}, {_turns(side["turns"])}')
            if side.get("refused"):
                line += f'; <span class="problem">refused {esc(side["refused"])}</span>'
            out.append(f'<li data-side="{esc(side["role"])}">{line}</li>')
        out.append(f'</ul><p class="none">game {esc(row["game"])}, rules '
                   f'{esc(row["rules"])}</p></div>')
    return "".join(out)


def with_card_line(card: str, table: str, rows: list[dict]) -> str:
    """A table's card (ending in its ``</div>``) with the lines of its remote games."""
    line = card_line(table, rows)
    if not line or not card.endswith("</div>"):
        return card
    return card[:-len("</div>")] + line + "</div>"


def card_line(table: str, rows: list[dict]) -> str:
    """A table card's line naming its remote games' opponents (none: empty)."""
    lines = []
    for row in rows:
        for side in row["sides"]:
            if side["table"] != table:
                continue
            other = next(s for s in row["sides"] if s is not side)
            lines.append(f'<p class="remote-line">Remote game: {esc(side["player"])} here v '
                         f'{esc(other["player"])} at table {esc(other["table"])} '
                         f'({esc(row["status"])})</p>')
    return "".join(lines[-3:])


def arrange_form(tables: list[str], token: str) -> str:
    """The admin form: two tables, the two players, the rules."""
    options = "".join(f'<option value="{esc(t)}">{esc(t)}</option>' for t in tables)
    rules = "".join(f'<option value="{esc(r)}"{" selected" if r == "sdg" else ""}>'
                    f'{esc(r)}</option>' for r in sorted(PRESETS))
    return (
        '<h2>Remote game</h2><p>Two tables play one game over the broker: the host table '
        "plays seat 0, the guest table seat 1. Each table is sent a signed invitation; "
        "its player accepts it at the table.</p>"
        f'<form class="admin" method="post" action="/admin/remote">{token}'
        f'<label>Host table <select name="host">{options}</select></label> '
        '<label>player (seat 0) <input name="player0" required maxlength="40"></label><br>'
        f'<label>Guest table <select name="guest">{options}</select></label> '
        '<label>player (seat 1) <input name="player1" required maxlength="40"></label><br>'
        f'<label>Rules <select name="rules">{rules}</select></label> '
        "<button>Invite both tables</button></form>")


def arranged(remote: Any, form: dict[str, str],
             send: Callable[[str], int] | None) -> tuple[str, str]:
    """Arrange the game the form names and send its invitations: (game id, what happened);
    ``ArrangeError`` for a bad form (400), ``HubOffline`` when it was kept but not sent."""
    from homeworlds.remote.hub_games import ArrangeError

    fields = {k: form.get(k) for k in ("host", "guest", "player0", "player1", "rules")}
    if not all(isinstance(v, str) for v in fields.values()):
        missing = [k for k, v in fields.items() if not isinstance(v, str)]
        raise ArrangeError(f"the remote game form: missing {', '.join(missing)}")
    game = remote.arrange(str(fields["host"]), str(fields["guest"]),
                          [str(fields["player0"]), str(fields["player1"])],
                          str(fields["rules"]))
    sent = send(game.game_id) if send is not None else 0
    return game.game_id, f"remote game {game.game_id}: invitation sent to {sent} tables"
