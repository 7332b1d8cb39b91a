"""How the slots of a layout lie on the table, row by row, as seen from above.

The layouts number their slots in a snake: the first half west→east along seat 0's edge,
the rest east→west along the far edge. The terminal view (``display.picture``) draws them
in these rows.
"""

from __future__ import annotations

import math

from homeworlds.table.layout import Layout


def slot_rows(layout: Layout) -> list[list[int]]:
    """Slot indices row by row as seen from above, seat 1's edge at the top."""
    n = len(layout.slots)
    width = 7 if n == 14 else 5 if n == 20 else math.ceil(n / 2)
    rows = [list(range(k, min(k + width, n))) for k in range(0, n, width)]
    for k in range(1, len(rows), 2):
        rows[k].reverse()  # the chain snakes back along the next row
    return list(reversed(rows))
