"""LED output cost per frame: colour correction, the output loop, the Blinka strip drivers.

Prints figures, asserts nothing. The strip-driver part runs in a child process
with ``BLINKA_OS_AGNOSTIC=1`` (Blinka's simulated board, whose SPI and
neopixel_write accept the bytes and drop them), so it measures the Python work
a Raspberry Pi would do per frame minus the wire time: 24 SPI bytes per pixel
at 6.4 MHz is 30 us per pixel, 7.7 ms for 256 pixels.

    python benchmarks/pixels_output.py [--pixels N]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

from homeworlds.pixels import (
    ColorCorrection,
    Frame,
    MemorySink,
    PixelOutput,
    frame_to_bytes,
)


def per_call_us(function: Callable[[], object], repeat: int = 7, number: int = 200) -> float:
    """Median over ``repeat`` runs of the mean time of one call, in microseconds."""
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            function()
        runs.append((time.perf_counter() - start) / number * 1e6)
    return statistics.median(runs)


def random_frames(pixels: int, count: int, seed: int = 1) -> list[Frame]:
    rng = random.Random(seed)
    return [tuple((rng.randrange(256), rng.randrange(256), rng.randrange(256))
                  for _ in range(pixels)) for _ in range(count)]


def host_side(pixels: int) -> None:
    frames = random_frames(pixels, 64)
    data = frame_to_bytes(frames[0])
    correction = ColorCorrection(brightness=0.4, gamma=2.2, max_current_ma=3000)
    print(f"LED output, {pixels} pixels, per frame (median of 7 runs)")
    print(f"  colour correction (gamma+brightness+current cap) "
          f"{per_call_us(lambda: correction.apply_bytes(data)):8.1f} us")

    output = PixelOutput(MemorySink(pixels), correction, max_fps=None)
    cycle = iter(range(10**9))
    print(f"  PixelOutput.submit, changed frame -> memory sink "
          f"{per_call_us(lambda: output.submit(frames[next(cycle) % 64])):8.1f} us")
    output.submit(frames[0])
    print(f"  PixelOutput.submit, unchanged frame              "
          f"{per_call_us(lambda: output.submit(frames[0])):8.1f} us")


def blinka_side(pixels: int) -> None:
    import neopixel_spi

    from homeworlds.pixels import open_sink

    frames = random_frames(pixels, 16)
    cycle = iter(range(10**9))
    sink = open_sink("neopixel-spi", pixels)
    show = lambda: sink.show(frames[next(cycle) % 16])  # noqa: E731
    print(f"  neopixel-spi sink show (fast encoder)            {per_call_us(show, number=50):8.1f} "
          "us")
    driver = sink._driver
    buffer = driver._post_brightness_buffer
    fast = per_call_us(lambda: driver._transmogrify(buffer), number=50)
    upstream = per_call_us(lambda: neopixel_spi.NeoPixel_SPI._transmogrify(driver, buffer),
                           number=10)
    print(f"    of which bit expansion: table {fast:8.1f} us, upstream loop {upstream:8.1f} us")
    sink.close()
    sink = open_sink("neopixel", pixels, pin="NEOPIXEL")
    show = lambda: sink.show(frames[next(cycle) % 16])  # noqa: E731
    print(f"  neopixel sink show (to the mock neopixel_write)  {per_call_us(show, number=50):8.1f} "
          "us")
    sink.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pixels", type=int, default=256)
    parser.add_argument("--blinka-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.blinka_child:
        blinka_side(args.pixels)
        return
    host_side(args.pixels)
    env = {**os.environ, "BLINKA_OS_AGNOSTIC": "1"}
    child = subprocess.run([sys.executable, __file__, "--pixels", str(args.pixels),
                            "--blinka-child"], env=env, capture_output=True, text=True)
    sys.stdout.write(child.stdout)
    if child.returncode:
        print(f"  (Blinka part failed: {child.stderr.strip().splitlines()[-1:]})")


if __name__ == "__main__":
    main()
