"""The running table as a whole, above the session, the displays and the store.

- ``config``: the table's TOML configuration, read strictly and validated
  (docs/configuration.md).
- ``table_replay``: recorded games played end to end on the simulated table, a real pty
  between the simulated microcontroller and the host.
- ``crash_drill``: a real ``homeworlds play`` process killed (SIGKILL) at seeded moments
  over the simulated table; nothing a player did may be lost.
"""
