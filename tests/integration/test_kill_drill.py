"""kill -9 of a real `homeworlds play` process over the simulated MCU on a pty, at seeded
moments (mid-turn, right after a hand-over, while the turn is being written): after every
restart the game goes on, and at the end the store holds every played turn, checked turn
by turn against the game. The long form is `make fuzz` (benchmarks/kill_fuzz.py)."""

from __future__ import annotations

from homeworlds.notation.sdg import read_sdg_file
from homeworlds.runtime.crash_drill import MOMENTS, CrashDrill


def test_kill_9_at_every_kind_of_moment_loses_nothing(tmp_path, shared_dir):
    game = read_sdg_file(shared_dir / "games" / "sdg" / "608.raw")
    drill = CrashDrill(game, tmp_path, seed=608, kills=3, max_turns=22, moments=MOMENTS)
    result = drill.run()
    assert result.problems == []
    assert result.turns_played == 22
    assert (result.turns_stored, result.turns_lost) == (22, 0)
    assert result.kills == result.kills_survived == 3
    assert sorted(result.moments) == sorted(MOMENTS)
