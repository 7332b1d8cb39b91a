"""Build the readers, buttons and settings from the board's table_config.py.

The hardware modules (``board``, ``busio``, ``digitalio``) are passed in by
code.py, so this module imports none of them and tests can hand in fakes.
Every mistake in the configuration raises ConfigError naming the key, e.g.
``READERS[2].busy: board has no pin 'GP99'``.

Configuration keys (a dict, see firmware/table_config.py for a full example):

- ``reader``: "pn5180" or "pn532"
- ``zones``: zone count reported to the host (default: highest zone + 1)
- ``spi``: {"clock", "mosi", "miso"} pin names (PN5180)
- ``reset``: shared reset pin of the PN5180s (optional)
- ``mux``: select pins shared by all readers, least significant first
- ``mux_enable``: the multiplexers' active-low enable (EN_N), one pin for all
- ``mux_latch``: the enable of the decoder that strobes each multiplexer board's latch
  (its 74HCT4514's ``LE``); the decoder's address lines are ``nss_decoder``'s, and the
  board of the reader whose ``cs`` is decoder output *n* latches on output *n*. With it
  every board holds its own channel and the scan core runs pipelined; without it the
  boards follow the shared select lines (``LE`` tied high) and it scans in batches
- ``mux_settle_us``: relay settle time after a channel switch (operate +
  bounce, or release if longer), waited before the first request
- ``fields_at_once``: how many readers may have their field on together
  (the supply budget's answer; 1 = one reader after another)
- ``nss_decoder``: {"address": [pins, A0 first], "enable": pin} of a 74HC138
  driving the chip selects; a reader's ``cs`` is then a decoder output number
- ``readers``: list of dicts; PN5180 keys ``cs``, ``busy``, ``zones``,
  optional ``mux``, ``reset`` (own reset line), ``channels`` (the mux channel
  of each zone, when some channels are not connected), ``irq`` (the MCU input its
  IRQ output goes to); PN532 keys ``tx``,
  ``rx``, ``zones``, optional ``mux``, ``channels``, ``max_targets``
- ``buttons``: pin names of the seat buttons (to ground, pulled up)
- ``settings``: initial scan settings (see tablefw.settings)
- ``timing``: driver timeouts, e.g. {"sof_timeout_ms": 1}
"""

from tablefw.errors import ConfigError
from tablefw.readers import Reader
from tablefw.readers.mux import GpioMux
from tablefw.settings import Settings

# The PN5180 and PN532 drivers, the chip-select decoder and the channel maps are
# imported where a configuration asks for them: a board loads only what it drives
# (each module loaded costs heap, about 8 KB for a driver).

KNOWN_KEYS = ("reader", "zones", "spi", "reset", "mux", "mux_enable", "mux_latch", "mux_settle_us",
              "fields_at_once",
              "nss_decoder", "readers", "buttons", "settings", "timing", "slow_zones")
PN5180_KEYS = ("cs", "busy", "zones", "mux", "reset", "channels", "irq")
PN532_KEYS = ("tx", "rx", "zones", "mux", "channels", "max_targets", "baudrate")
PN5180_TIMING = ("sof_timeout_ms", "rx_timeout_ms", "busy_timeout_ms", "power_up_ms", "max_rounds",
                 "baudrate")
PN532_TIMING = ("timeout_ms", "passive_retries")


class Hardware:
    """The board modules, and pin objects made from names."""

    def __init__(self, board, busio, digitalio):
        self.board = board
        self.busio = busio
        self.digitalio = digitalio
        self.used = {}  # pin name -> the key that uses it

    def pin(self, name, where):
        if not isinstance(name, str):
            raise ConfigError("%s: expected a pin name such as 'GP5', got %r" % (where, name))
        pin = getattr(self.board, name, None)
        if pin is None:
            raise ConfigError("%s: board has no pin %r" % (where, name))
        if name in self.used:
            raise ConfigError("%s: pin %s is already used by %s" % (where, name, self.used[name]))
        self.used[name] = where
        return pin

    def output(self, name, where, value=False):
        io = self.digitalio.DigitalInOut(self.pin(name, where))
        io.switch_to_output(value=value)
        return io

    def input(self, name, where, pull_up=False):
        io = self.digitalio.DigitalInOut(self.pin(name, where))
        if pull_up:
            io.switch_to_input(pull=self.digitalio.Pull.UP)
        else:
            io.switch_to_input()
        return io


def _check_keys(section, known, where):
    if not isinstance(section, dict):
        raise ConfigError("%s: expected a dict, got %r" % (where, section))
    for key in section:
        if key not in known:
            raise ConfigError("%s: unknown key %r (known: %s)" % (where, key, ", ".join(known)))


def _zones(value, where):
    if not isinstance(value, (list, tuple)) or not value:
        raise ConfigError("%s: expected a non-empty list of zone numbers" % where)
    for zone in value:
        if not isinstance(zone, int) or zone < 0:
            raise ConfigError("%s: zone numbers must be non-negative integers, got %r"
                              % (where, zone))
    return list(value)


def _mux(hw, pins, where, cache, enable=None, settle_us=0, latch=None):
    """The multiplexer on select ``pins`` (boards on the same pins share one), or with
    ``latch`` = (strobe, output) a board of its own that latches its channel from them."""
    if not isinstance(pins, (list, tuple)) or not pins:
        raise ConfigError("%s: expected a list of select pin names" % where)
    key = tuple(pins)
    if key not in cache:
        outputs = [hw.output(name, "%s[%d]" % (where, i)) for i, name in enumerate(pins)]
        cache[key] = GpioMux(outputs, enable=enable, settle_us=settle_us)
    if latch is None:
        return cache[key]
    return GpioMux(cache[key].pins, enable=enable, settle_us=settle_us, strobe=latch[0],
                   output=latch[1])


def _count(config, key, low, high, default):
    value = config.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < low or value > high:
        raise ConfigError("%s: expected a whole number %d..%d, got %r" % (key, low, high, value))
    return value


def fields_at_once(config):
    """How many readers' fields may be on together (checked; default 1)."""
    return _count(config, "fields_at_once", 1, 64, 1)


def _decoder(hw, spec):
    _check_keys(spec, ("address", "enable"), "nss_decoder")
    for key in ("address", "enable"):
        if key not in spec:
            raise ConfigError("nss_decoder: missing key %r" % key)
    address = spec["address"]
    if not isinstance(address, (list, tuple)) or not address:
        raise ConfigError("nss_decoder.address: expected a list of pin names, A0 first")
    lines = [hw.output(name, "nss_decoder.address[%d]" % i) for i, name in enumerate(address)]
    from tablefw.chipselect import NssDecoder

    return NssDecoder(lines, hw.output(spec["enable"], "nss_decoder.enable", value=True))


def _chip_select(hw, spec, where, decoder, taken):
    if isinstance(spec, int) and not isinstance(spec, bool):
        if decoder is None:
            raise ConfigError("%s: decoder output %d needs 'nss_decoder' (its address and enable "
                              "pins)"
                              % (where, spec))
        if spec < 0 or spec >= decoder.outputs:
            raise ConfigError("%s: the decoder has outputs 0..%d, not %d"
                              % (where, decoder.outputs - 1, spec))
        if spec in taken:
            raise ConfigError("%s: decoder output %d is already used by %s"
                              % (where, spec, taken[spec]))
        taken[spec] = where
        return decoder.line(spec)
    return hw.output(spec, where, value=True)


def _channel_map(mux, channels, zones, where):
    if not isinstance(channels, (list, tuple)) or len(channels) != len(zones):
        raise ConfigError("%s: expected one mux channel per zone (%d)" % (where, len(zones)))
    limit = mux.channels if mux is not None else 1
    for channel in channels:
        if not isinstance(channel, int) or isinstance(channel, bool) or \
                channel < 0 or channel >= limit:
            raise ConfigError("%s: channel %r is not 0..%d" % (where, channel, limit - 1))
    if len(set(channels)) != len(channels):
        raise ConfigError("%s: a channel is listed twice in %r" % (where, list(channels)))
    if mux is None:
        return None
    from tablefw.chanmap import ChannelMap

    return ChannelMap(mux, channels)


def slow_zones(config):
    """The zones the scanner visits less often (the bank tray), checked."""
    if "slow_zones" not in config:
        return ()
    zones = _zones(config["slow_zones"], "slow_zones")
    total = config.get("zones")
    for zone in zones:
        if isinstance(total, int) and zone >= total:
            raise ConfigError("slow_zones: zone %d is beyond the %d zones" % (zone, total))
    return tuple(zones)


def build(config, board, busio, digitalio, clock=None, sleep=None):
    """Return (readers, buttons, settings, zone_count) for ``config``.

    ``buttons`` is a list of pin objects (inputs with pull-ups).
    """
    _check_keys(config, KNOWN_KEYS, "config")
    hw = Hardware(board, busio, digitalio)
    kind = config.get("reader", "pn5180")
    if kind not in ("pn5180", "pn532"):
        raise ConfigError("reader: expected 'pn5180' or 'pn532', got %r" % (kind,))
    timing = config.get("timing", {})
    _check_keys(timing, PN5180_TIMING if kind == "pn5180" else PN532_TIMING, "timing")
    entries = config.get("readers")
    if not isinstance(entries, (list, tuple)) or not entries:
        raise ConfigError("readers: expected a non-empty list of reader dicts")
    try:
        settings = Settings(config.get("settings", {}))
    except ValueError as exc:
        raise ConfigError("settings: %s" % exc) from None

    muxes: dict[tuple, GpioMux] = {}
    shared_mux = config.get("mux")
    settle_us = _count(config, "mux_settle_us", 0, 100000, 0)
    fields_at_once(config)
    mux_enable = None
    if config.get("mux_enable") is not None:
        # High (disabled) until the first channel is selected.
        mux_enable = hw.output(config["mux_enable"], "mux_enable", value=True)
    readers: list[Reader] = []
    owner: dict[int, int] = {}
    spi, reset = _spi_bus(config, hw, busio) if kind == "pn5180" else (None, None)
    # Reset lines by pin name: readers naming the same pin share one output.
    resets = {}
    if reset is not None:
        resets[config["reset"]] = reset
    decoder = None
    if config.get("nss_decoder") is not None:
        decoder = _decoder(hw, config["nss_decoder"])
    strobe = _latch_strobe(hw, config, decoder, kind)
    decoder_outputs: dict[int, str] = {}
    # What every reader is built with, beside its own entry.
    shared = (hw, busio, kind, timing, spi, reset, resets, decoder, decoder_outputs, clock,
              sleep)

    for index in range(len(entries)):
        entry = entries[index]
        where = "readers[%d]" % index
        _check_keys(entry, PN5180_KEYS if kind == "pn5180" else PN532_KEYS, where)
        if "zones" not in entry:
            raise ConfigError("%s: missing key 'zones'" % where)
        zones = _zones(entry["zones"], where + ".zones")
        for zone in zones:
            if zone in owner:
                raise ConfigError("%s.zones: zone %d is already served by readers[%d]"
                                  % (where, zone, owner[zone]))
            owner[zone] = index
        latch = None
        if strobe is not None:
            cs = entry.get("cs")
            if not isinstance(cs, int) or isinstance(cs, bool):
                raise ConfigError("%s.cs: with 'mux_latch' the multiplexer's latch is strobed "
                                  "on the decoder output of the reader's chip select: expected "
                                  "a decoder output number, got %r" % (where, cs))
            latch = (strobe, cs)
        mux = _reader_mux(hw, entry, zones, where, shared_mux, muxes, mux_enable, settle_us,
                          latch)
        readers.append(_reader(entry, index, where, zones, mux, shared))

    served = max(owner) + 1
    zone_count = config.get("zones", served)
    if not isinstance(zone_count, int) or zone_count < served:
        raise ConfigError("zones: %r is less than the highest zone served plus one (%d)"
                          % (zone_count, served))
    button_names = config.get("buttons", [])
    if not isinstance(button_names, (list, tuple)):
        raise ConfigError("buttons: expected a list of pin names")
    buttons = [hw.input(name, "buttons[%d]" % i, pull_up=True)
               for i, name in enumerate(button_names)]
    return readers, buttons, settings, zone_count


def _spi_bus(config, hw, busio):
    """The PN5180s' shared SPI bus and their shared reset line (None: none)."""
    pins = config.get("spi")
    _check_keys(pins, ("clock", "mosi", "miso"), "spi")
    for key in ("clock", "mosi", "miso"):
        if key not in pins:
            raise ConfigError("spi: missing key %r" % key)
    spi = busio.SPI(hw.pin(pins["clock"], "spi.clock"), MOSI=hw.pin(pins["mosi"], "spi.mosi"),
                    MISO=hw.pin(pins["miso"], "spi.miso"))
    reset = None
    if config.get("reset") is not None:
        reset = hw.output(config["reset"], "reset", value=True)
    return spi, reset


def _latch_strobe(hw, config, decoder, kind):
    """The decoder strobing the multiplexers' latches (``mux_latch``), or None: the boards
    then follow the shared select lines."""
    if config.get("mux_latch") is None:
        return None
    if kind != "pn5180" or decoder is None:
        raise ConfigError("mux_latch: the latch decoder's address lines are the NSS decoder's: "
                          "it needs 'nss_decoder' (and PN5180 readers on its outputs)")
    from tablefw.chipselect import LatchStrobe

    return LatchStrobe(decoder.address, hw.output(config["mux_latch"], "mux_latch"))


def _reader_mux(hw, entry, zones, where, shared_mux, muxes, mux_enable, settle_us, latch=None):
    """The multiplexer in front of one reader (None for a reader of one pad), its
    channels remapped when the entry lists them; ``latch``: (strobe, output) of a board
    that latches its channel."""
    mux_pins = entry.get("mux", shared_mux)
    mux = None
    if len(zones) > 1 or entry.get("channels", [0]) != [0]:
        if mux_pins is None:
            raise ConfigError("%s: %d zones need 'mux' select pins (here or at the top level)"
                              % (where, len(zones)))
        mux = _mux(hw, mux_pins, where + ".mux" if "mux" in entry else "mux", muxes,
                   mux_enable, settle_us, latch)
        if len(zones) > mux.channels:
            raise ConfigError("%s.zones: %d zones but the mux has %d channels"
                              % (where, len(zones), mux.channels))
    if "channels" in entry:
        mux = _channel_map(mux, entry["channels"], zones, where + ".channels")
    return mux


def _reader(entry, index, where, zones, mux, shared):
    """One reader of the config's kind: a PN5180 on the SPI bus, or a PN532 on a UART."""
    (hw, busio, kind, timing, spi, reset, resets, decoder, decoder_outputs, clock,
     sleep) = shared
    name = "%s#%d" % (kind, index)
    options = {}
    for key in timing:
        options[key] = timing[key]
    if kind == "pn5180":
        for key in ("cs", "busy"):
            if key not in entry:
                raise ConfigError("%s: missing key %r" % (where, key))
        reader_reset = reset
        if entry.get("reset") is not None:
            pin = entry["reset"]
            if pin not in resets:
                resets[pin] = hw.output(pin, where + ".reset", value=True)
            reader_reset = resets[pin]
        from tablefw.readers.pn5180 import PN5180

        cs = _chip_select(hw, entry["cs"], where + ".cs", decoder, decoder_outputs)
        irq = hw.input(entry["irq"], where + ".irq") if entry.get("irq") is not None else None
        reader: Reader = PN5180(spi, cs, hw.input(entry["busy"], where + ".busy"),
                                reader_reset, zones, mux, clock=clock, sleep=sleep, name=name,
                                irq=irq, **options)
        return reader
    for key in ("tx", "rx"):
        if key not in entry:
            raise ConfigError("%s: missing key %r" % (where, key))
    uart = busio.UART(hw.pin(entry["tx"], where + ".tx"), hw.pin(entry["rx"], where + ".rx"),
                      baudrate=entry.get("baudrate", 115200), timeout=0)
    from tablefw.readers.pn532 import PN532

    try:
        return PN532(uart, zones, mux, max_targets=entry.get("max_targets", 2),
                     clock=clock, sleep=sleep, name=name, **options)
    except ValueError as exc:
        raise ConfigError("%s: %s" % (where, exc)) from None
