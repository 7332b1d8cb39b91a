"""The computer opponent: ``ComputerPlayer`` and the baselines it is measured against.

See docs/computer-opponent.md. Every player offers ``choose_turn(state) -> Turn``.
"""

from homeworlds.ai.players import (
    LEVELS,
    ComputerPlayer,
    GreedyPlayer,
    RandomPlayer,
    play_game,
    random_legal_turn,
)

__all__ = ["LEVELS", "ComputerPlayer", "GreedyPlayer", "RandomPlayer", "play_game",
           "random_legal_turn"]
