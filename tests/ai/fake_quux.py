"""A stand-in for the C++ engine's ``homeworlds-cli --auto``, speaking the protocol the
real program was seen to speak (2026-11-25, Quuxplusone/Homeworlds at edb4263):

    <position lines>, a blank line        (read before anything is written)
    verbose                   -> "Now operating in verbose mode."
    then, before every command, a prompt without a newline: "NAME's move? > "
    ai_move                   -> "AI for NAME chooses: TURN"
    a legal turn              -> "Okay."
    an illegal turn           -> "The move as parsed was disallowed by the rules. The move was:"
                                 '"TURN"' / 'Enter the string "help" for help ...'
    state                     -> "The current state is:" and one line per system
    stash                     -> "The current stash is:" and one line
    a winning turn            -> also "NAME has won the game!" and a second line

The position is kept by the project's own engine. What its AI answers is planned by the
environment variable FAKE_QUUX_PLAN, one word per ``ai_move`` (after the last, ``legal``):
``legal`` (a random legal turn), ``illegal`` (a catastrophe where there is no
overpopulation), ``garbage`` (not a turn at all), ``noise`` (no "AI for" line, just text
after the prompt), ``exit`` (the program ends), ``hang`` (no answer), ``lie`` (says
``pass`` but builds), ``refuse`` (refuses the next turn it is told).
"""

from __future__ import annotations

import os
import random
import sys
import time

from homeworlds.ai import RandomPlayer
from homeworlds.notation import CookedSystem, format_cooked_turn, parse_cooked_turn, read_cooked
from homeworlds.rules import PIECES, GameState, HomeworldsError, preset


def systems_text(state: GameState) -> list[str]:
    return [CookedSystem(s.name, s.home_of, tuple(PIECES[i] for i in s.stars),
                         tuple(tuple(PIECES[i] for i in range(12) for _ in range(f[i]))
                               for f in s.ships)).to_text() for s in state.systems]


def _ai_move(state: GameState, names: list[str], step: str, rng: random.Random) -> None:
    """Answer ``ai_move`` as the plan's step says: hang, garbage, noise, an illegal turn, a
    lie (says pass, plays a build), or a legal turn."""
    me = names[state.to_move]
    if step == "hang":
        time.sleep(600)
    if step == "garbage":
        print(f"AI for {me} chooses: fly me to the moon", flush=True)
        return
    if step == "noise":
        print("*** stack smashing detected ***", flush=True)
        return
    if step == "illegal":
        print(f"AI for {me} chooses: catastrophe red at {names[1 - state.to_move]}",
              flush=True)
        return
    turn = RandomPlayer(seed=rng.randrange(10**6)).choose_turn(state)
    if step == "lie":
        text = "pass"
        turn = next(t for t in _builds(state)) if _builds(state) else turn
    else:
        text = format_cooked_turn(turn)
    state.apply_turn(turn)
    print(f"AI for {me} chooses: {text}", flush=True)
    _report_end(state, me)


def main() -> int:
    seed = int(sys.argv[sys.argv.index("--seed") + 1]) if "--seed" in sys.argv else 0
    plan = [w for w in os.environ.get("FAKE_QUUX_PLAN", "").split(",") if w]
    lines = []
    for line in sys.stdin:
        if not line.strip():
            break
        lines.append(line)
    position = read_cooked("".join(lines), named=True)
    state = GameState.from_position(position.systems, preset("strict"))
    names = [s.name for s in sorted((s for s in position.systems if s.home_of is not None),
                                    key=lambda s: s.home_of)]
    rng = random.Random(seed)
    refuse_next = False
    verbose = False
    out = sys.stdout
    while True:
        if verbose:
            out.write(f"{names[state.to_move]}'s move? > ")
            out.flush()
        line = sys.stdin.readline()
        if not line:
            return 0
        command = line.rstrip("\n")
        if command == "verbose":
            verbose = True
            print("Now operating in verbose mode.", flush=True)
        elif command == "state":
            print("The current state is:")
            print("\n".join(systems_text(state)), flush=True)
        elif command == "stash":
            print("The current stash is:")
            print("".join(PIECES[i].to_text() * n for i, n in enumerate(state.bank)),
                  flush=True)
        elif command == "ai_move":
            step = plan.pop(0) if plan else "legal"
            if step == "exit":
                return 3
            if step == "refuse":
                refuse_next = True
            _ai_move(state, names, step, rng)
        else:
            mover = names[state.to_move]
            try:
                if refuse_next:
                    refuse_next = False
                    raise HomeworldsError("refused by plan")
                state.apply_turn(parse_cooked_turn(command))
            except HomeworldsError:
                print("The move as parsed was disallowed by the rules. The move was:")
                print(f'"{command}"')
                print('Enter the string "help" for help with this game\'s interface.',
                      flush=True)
                continue
            print("Okay.", flush=True)
            _report_end(state, mover)


def _builds(state: GameState) -> list:
    from homeworlds.rules import Build, legal_actions

    tip = state.begin_turn()
    return [(a,) for a in legal_actions(tip, kinds=(Build,))]


def _report_end(state: GameState, mover: str) -> None:
    if state.result is not None:
        print(f"{mover} has won the game!")
        print('(Valid commands at this point include "review" and "help".)', flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
