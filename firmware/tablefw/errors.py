"""Exceptions that outlive the module raising them.

tablefw.config is given back to the heap once the board is built (see
tablefw.app); its error type lives here so that a ConfigError is the same class
whichever import of tablefw.config raised it.
"""


class ConfigError(ValueError):
    """A mistake in table_config.py; the message names the key."""
