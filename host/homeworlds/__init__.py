"""Controller of an instrumented Homeworlds table.

Layers (see docs/code-overview.md): ``rules`` (pure engine) and ``notation``
at the bottom; ``table``, ``hints``, ``link``, ``pixels``, ``sim`` above them;
``cli`` on top.
"""

__version__ = "0.1.0"
