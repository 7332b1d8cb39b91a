"""Wiring and settings of this table (read by code.py on the board).

The example is the reference two-player table on a Raspberry Pi Pico
(RP2040): six PN5180 readers on one SPI bus, each with an 8-way antenna
multiplexer whose three select lines are shared, serving zones 0..43.
Zone numbers must match hardware/layouts/<your layout>.toml.
"""

CONFIG = {
    "reader": "pn5180",
    "zones": 44,
    "spi": {"clock": "GP18", "mosi": "GP19", "miso": "GP16"},
    "reset": "GP22",
    # Antenna multiplexer select lines, least significant bit first.
    "mux": ["GP2", "GP3", "GP4"],
    "readers": [
        {"cs": "GP17", "busy": "GP20", "zones": [0, 1, 2, 3, 4, 5, 6, 7]},
        {"cs": "GP5", "busy": "GP6", "zones": [8, 9, 10, 11, 12, 13, 14, 15]},
        {"cs": "GP7", "busy": "GP8", "zones": [16, 17, 18, 19, 20, 21, 22, 23]},
        {"cs": "GP9", "busy": "GP10", "zones": [24, 25, 26, 27, 28, 29, 30, 31]},
        {"cs": "GP11", "busy": "GP12", "zones": [32, 33, 34, 35, 36, 37, 38, 39]},
        {"cs": "GP13", "busy": "GP21", "zones": [40, 41, 42, 43]},
    ],
    # Seat buttons, wired to ground (internal pull-ups).
    "buttons": ["GP14", "GP15"],
    "settings": {"debounce_on": 2, "debounce_off": 3, "hb_ms": 1000, "snap_ms": 5000},
}

# The cheap prototype instead: PN532 boards on the two UARTs, ISO 14443A tags.
PN532_EXAMPLE = {
    "reader": "pn532",
    "readers": [
        {"tx": "GP0", "rx": "GP1", "zones": [0]},
        {"tx": "GP4", "rx": "GP5", "zones": [1]},
    ],
    "buttons": ["GP14", "GP15"],
}
