"""``homeworlds hub-keys``: each table's identity at an event (docs/event.md, "Identity").

    homeworlds hub-keys --store hub.sqlite --event club --dir keys issue t1 t2 t3
    homeworlds hub-keys --store hub.sqlite --event club --dir keys rotate t2
    homeworlds hub-keys --store hub.sqlite --event club --dir keys revoke t3
    homeworlds hub-keys --store hub.sqlite --event club --dir keys list

``issue`` gives a table a signing key (kept in the hub's store; ``<dir>/<table>.key``) and
a broker account of its own (``<dir>/<table>.pw``), and writes the broker's
``broker.passwd`` and ``broker.acl`` again (with the hub's account, ``hub.pw``, made once).
``rotate`` gives the table a new key: the old one stays valid until the hub sees the new one
used, then it is retired. ``revoke`` refuses every key of the table at once (the running
hub reads it within a second) and removes its broker account (reload mosquitto). Secret
files are written mode 600; nothing secret is printed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("hub-keys", help="issue, rotate and revoke the tables' keys and "
                       "broker accounts of an event", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--store", default="hub.sqlite", metavar="FILE",
                   help="the hub's game store, where the keys are kept (default: hub.sqlite)")
    p.add_argument("--event", required=True, help="the event's name (its topic level)")
    p.add_argument("--dir", default="keys", metavar="DIR", type=Path,
                   help="where the key, password, passwd and ACL files go (default: keys)")
    p.add_argument("--hub-user", default="hub", help="the hub's broker account (default: hub)")
    p.add_argument("action", choices=("issue", "rotate", "revoke", "list", "acl"))
    p.add_argument("tables", nargs="*", metavar="TABLE")
    p.set_defaults(func=run)


def _fail(message: str) -> int:
    print(f"homeworlds hub-keys: {message}", file=sys.stderr)
    return 2


def _bad_names(args: argparse.Namespace, name_pattern) -> str | None:
    """What is wrong with the event and table names given (None: nothing)."""
    if not name_pattern.fullmatch(args.event):
        return f"--event {args.event!r}: use letters, digits, '-', '_' or '.'"
    for table in args.tables:
        if not name_pattern.fullmatch(table) or table == args.hub_user:
            return (f"table {table!r}: use letters, digits, '-', '_' or '.' (and not "
                    f"the hub's account name {args.hub_user!r})")
    if args.action in ("issue", "rotate", "revoke") and not args.tables:
        return f"{args.action}: name the table(s)"
    return None


def _issue(args: argparse.Namespace, store, files, issue_key) -> None:
    """``issue`` (a first key and a broker account) or ``rotate`` (a new key; the old one
    stays valid until the table first uses the new one)."""
    made = files.ensure_hub()
    if made is not None:
        print(f"the hub's broker account {args.hub_user}: password in {made}")
    for table in args.tables:
        key = issue_key(store, table)
        path = files.write_key(key)
        line = f"table {table}: key {key.key_id} in {path}"
        if args.action == "issue":
            line += f", broker password in {files.add_account(table)}"
        else:
            line += " (the old key stays valid until the table first uses this one)"
        print(line)
    print(f"broker files: {files.passwd}, {files.acl} (copy them to the broker, "
          "then reload mosquitto)")


def run(args: argparse.Namespace) -> int:
    from homeworlds.event.identity import BrokerFiles, issue_key, key_list, revoke_keys
    from homeworlds.event.settings import NAME_PATTERN
    from homeworlds.store import GameStore, StoreError
    from homeworlds.store.remote_games import StoredRemoteGames

    problem = _bad_names(args, NAME_PATTERN)
    if problem is not None:
        return _fail(problem)
    try:
        store = GameStore.open(args.store)
    except StoreError as exc:
        return _fail(str(exc))
    files = BrokerFiles(args.dir, args.event, args.hub_user)
    try:
        # The remote games the hub arranged keep their topics in the ACL.
        files.remote_games = [(g.game_id, g.host_table, g.guest_table)
                              for g in StoredRemoteGames(store).games()]
        held = {k.table for k in key_list(store) if k.valid}
        if args.action == "issue":
            again = [t for t in args.tables if t in held]
            if again:
                return _fail(f"table {', '.join(again)} has a key already: `rotate` gives "
                             "it a new one")
        if args.action == "rotate":
            missing = [t for t in args.tables if t not in held]
            if missing:
                return _fail(f"table {', '.join(missing)} has no valid key: `issue` one")
        if args.action in ("issue", "rotate"):
            _issue(args, store, files, issue_key)
        elif args.action == "revoke":
            for table in args.tables:
                ids = revoke_keys(store, table)
                removed = files.remove_account(table)
                print(f"table {table}: revoked {', '.join(ids) or 'no key (none valid)'}"
                      + (f"; its broker account removed from {files.passwd} and "
                         f"{files.acl} (copy them to the broker, then reload mosquitto)"
                         if removed else ""))
        elif args.action == "acl":
            files.rewrite()
            print(files.acl.read_text(encoding="utf-8"), end="")
        else:
            for k in key_list(store):
                state = ("revoked " + k.revoked if k.revoked else
                         "retired " + k.retired if k.retired else "valid")
                print(f"{k.table}\t{k.key_id}\tissued {k.issued}\t{state}")
    except StoreError as exc:
        return _fail(str(exc))
    except OSError as exc:
        return _fail(f"{getattr(exc, 'filename', '') or args.dir}: {exc.strerror or exc}")
    finally:
        store.close()
    return 0
