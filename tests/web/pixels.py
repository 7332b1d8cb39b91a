"""Is a screenshot more than one flat colour? A PNG reader just big enough for Chromium's
screenshots (8-bit RGB or RGBA, not interlaced), so the check needs no imaging library; for
full-screen shots the browser that took them decodes them faster (``page=``)."""

from __future__ import annotations

import base64
import struct
import zlib


def png_pixels(data: bytes) -> tuple[int, int, int, bytes]:
    """(width, height, channels, raw pixel rows without filter bytes)."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    pos, idat = 8, []
    width = height = channels = 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, color_type, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or color_type not in (2, 6) or interlace:
                raise ValueError(f"unsupported PNG (depth {depth}, colour type {color_type}, "
                                 f"interlace {interlace})")
            channels = 3 if color_type == 2 else 4
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    out = bytearray(stride * height)
    prev = bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b = prev[x]
            c = prev[x - channels] if x >= channels else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out[y * stride:(y + 1) * stride] = line
        prev = line
    return width, height, channels, bytes(out)


def luminance_stats(data: bytes, step: int = 4) -> tuple[float, float, int]:
    """(mean, variance, distinct colours) of the luminance of every ``step``-th pixel."""
    width, height, channels, pixels = png_pixels(data)
    values = []
    colours = set()
    for y in range(0, height, step):
        row = y * width * channels
        for x in range(0, width, step):
            i = row + x * channels
            r, g, b = pixels[i], pixels[i + 1], pixels[i + 2]
            values.append(0.299 * r + 0.587 * g + 0.114 * b)
            colours.add((r, g, b))
    mean = sum(values) / len(values)
    variance = sum((v - mean) ** 2 for v in values) / len(values)
    return mean, variance, len(colours)


#: The same statistics as ``luminance_stats``, worked out by the browser on a canvas.
_STATS_JS = """async ([b64, step]) => {
  const img = new Image();
  img.src = 'data:image/png;base64,' + b64;
  await img.decode();
  const canvas = document.createElement('canvas');
  canvas.width = img.naturalWidth; canvas.height = img.naturalHeight;
  const ctx = canvas.getContext('2d');
  ctx.drawImage(img, 0, 0);
  const px = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
  const values = [], colours = new Set();
  for (let y = 0; y < canvas.height; y += step) {
    for (let x = 0; x < canvas.width; x += step) {
      const i = (y * canvas.width + x) * 4;
      values.push(0.299 * px[i] + 0.587 * px[i + 1] + 0.114 * px[i + 2]);
      colours.add((px[i] << 16) | (px[i + 1] << 8) | px[i + 2]);
    }
  }
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const variance = values.reduce((a, v) => a + (v - mean) ** 2, 0) / values.length;
  return [mean, variance, colours.size];
}"""


def luminance_stats_in_browser(page, data: bytes, step: int = 4) -> tuple[float, float, int]:
    mean, variance, colours = page.evaluate(_STATS_JS,
                                            [base64.b64encode(data).decode(), step])
    return mean, variance, colours


def assert_not_blank(data: bytes, what: str, min_variance: float = 100.0,
                     min_colours: int = 8, *, page=None) -> None:
    """``page``: a Playwright page to decode the PNG in (fast); else Python decodes it."""
    stats = luminance_stats_in_browser if page is not None else None
    mean, variance, colours = (stats(page, data) if stats is not None
                               else luminance_stats(data))
    assert variance >= min_variance and colours >= min_colours, (
        f"{what} looks blank: luminance variance {variance:.1f} (mean {mean:.1f}), "
        f"{colours} distinct colours")
