"""Multiplexer channel maps: a pin-like adapter config.py puts between a driver and its
multiplexer when the wired channels have gaps, so the driver keeps calling
``mux.select(i)``. Loaded only by a configuration that lists ``channels``."""


class ChannelMap:
    """A multiplexer whose wired channels have gaps: the reader's ``i``-th zone
    is on physical channel ``channels[i]``."""

    def __init__(self, mux, channels):
        self.mux = mux
        self.map = tuple(channels)
        self.channels = mux.channels

    @property
    def settle_us(self):
        return getattr(self.mux, "settle_us", 0)

    @property
    def channel(self):
        return self.mux.channel

    def select(self, index):
        return self.mux.select(self.map[index])

    def release(self):
        self.mux.release()
