"""Builder tools behind hardware/rf-design.md; nothing of the game, no hardware.

- ``rf``: the antenna calculator (``python -m homeworlds.tools.rf``).
- ``netlist``: textual netlists of the boards and their electrical rules check
  (``python -m homeworlds.tools.netlist FILE...``).
"""
