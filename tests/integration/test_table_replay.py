"""Archive games played on the simulated table over a pty: every turn inferred and recorded."""

from __future__ import annotations

import os
import random
from concurrent.futures import ProcessPoolExecutor

import pytest

from homeworlds.replay import load_expected

SAMPLE = 100


def _play(path: str) -> dict:
    from homeworlds.notation.sdg import read_sdg_file
    from homeworlds.runtime.table_replay import table_replay_game

    result = table_replay_game(read_sdg_file(path), file=os.path.basename(path),
                               miss_rate=0.05, seed=len(path))
    record = result.to_json()
    record["stopped"] = result.stopped
    return record


def _legal_two_player_games(shared_dir) -> list[str]:
    expected = load_expected(shared_dir / "games" / "expected.tsv")
    return sorted((name for name, row in expected.items() if row.legal), key=int)


def _run(shared_dir, names: list[str]) -> list[dict]:
    paths = [str(shared_dir / "games" / "sdg" / f"{n}.raw") for n in names]
    with ProcessPoolExecutor(max_workers=max(1, min(2, os.cpu_count() or 1))) as pool:
        return list(pool.map(_play, paths))


def _assert_all_inferred(results: list[dict]) -> None:
    bad = [r for r in results if r["refused"] or r["stopped"] or not r["record_equal"]
           or r["inferred"] != r["turns"] or r["matched"] != r["turns"]]
    assert bad == [], bad[:5]


def test_seeded_sample_of_archive_games_through_the_simulated_table(shared_dir):
    names = random.Random(42).sample(_legal_two_player_games(shared_dir), SAMPLE)
    _assert_all_inferred(_run(shared_dir, names))


@pytest.mark.corpus
def test_every_legal_two_player_game_through_the_simulated_table(shared_dir):
    _assert_all_inferred(_run(shared_dir, _legal_two_player_games(shared_dir)))
