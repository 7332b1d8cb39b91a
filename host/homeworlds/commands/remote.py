"""``homeworlds remote-invite`` and ``homeworlds remote-join``: the invitation code of a
game played against another table over a broker (docs/remote-play.md).

    homeworlds remote-invite --out remote.code     # the inviting table: prints the code
    homeworlds remote-join hw-k3f9q-a7m2x-pd4wn-c8ter-vb5hz --out remote.code
    homeworlds remote-invite --tables 3 --out remote.code   # three tables: hw3-...

Both write the code into the file (mode 600) that the table's ``[remote] code_file`` names;
``remote-join`` refuses a mistyped code at once. Then start ``homeworlds play`` on both.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from homeworlds.remote.invitation import Invitation, InvitationError


def register(sub: argparse._SubParsersAction) -> None:
    for name, helptext in (("remote-invite", "make the invitation code of a game against "
                            "another table"),
                           ("remote-join", "accept another table's invitation code")):
        p = sub.add_parser(name, help=helptext, description=__doc__,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        if name == "remote-join":
            p.add_argument("code", help="the code the inviting table showed")
        else:
            p.add_argument("--tables", type=int, default=2, metavar="N",
                           help="how many tables play the game (2 to 6; default 2)")
        p.add_argument("--out", type=Path, default=Path("remote.code"), metavar="FILE",
                       help="where the code is kept (default: remote.code; mode 600)")
        p.add_argument("--force", action="store_true",
                       help="replace an existing code file (its game can no longer be resumed)")
        p.set_defaults(func=run, invite=name == "remote-invite")


def run(args: argparse.Namespace) -> int:
    name = "remote-invite" if args.invite else "remote-join"
    if args.invite:
        try:
            invitation = Invitation.new(args.tables)
        except InvitationError as exc:
            print(f"homeworlds {name}: --tables: {exc}", file=sys.stderr)
            return 2
    else:
        try:
            invitation = Invitation.from_code(args.code)
        except InvitationError as exc:
            print(f"homeworlds {name}: {exc}", file=sys.stderr)
            return 2
    if args.out.exists() and not args.force:
        print(f"homeworlds {name}: {args.out} exists (a game's code): give --force to "
              "replace it", file=sys.stderr)
        return 2
    try:
        fd = os.open(args.out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(invitation.code + "\n")
        os.chmod(args.out, 0o600)
    except OSError as exc:
        print(f"homeworlds {name}: {args.out}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    if args.invite:
        print(f"invitation code: {invitation.code}")
        if invitation.sides == 2:
            print("read it to the other player (in person, by phone or a private message); "
                  "anyone who has it can play the other seat")
        else:
            print("read it to the other players (in person, by phone or a private "
                  "message); anyone who has it can play a seat. Each table names its "
                  "[remote] role: " + ", ".join(f"{r} (seat {k})" for k, r in
                                                enumerate(invitation.roles)))
    else:
        print(f"a game of {invitation.sides} tables: its roles are "
              f"{', '.join(invitation.roles)}")
    print(f"remote game {invitation.game_id}: the code is in {args.out}; name it in "
          "[remote] code_file and start `homeworlds play`")
    return 0
