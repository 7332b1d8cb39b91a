"""The computer opponent: ``ComputerPlayer`` and the baselines it is measured against.

See docs/computer-opponent.md. Every player offers ``choose_turn(state) -> Turn``.
"""

from homeworlds.ai.players import (
    LEVELS,
    TOP_LEVEL,
    ComputerPlayer,
    GreedyPlayer,
    LegacyPlayer,
    RandomPlayer,
    play_game,
    random_legal_turn,
)
from homeworlds.ai.search import SearchProgress

__all__ = ["LEVELS", "TOP_LEVEL", "ComputerPlayer", "GreedyPlayer", "LegacyPlayer",
           "RandomPlayer", "SearchProgress", "play_game", "random_legal_turn"]
