"""The firmware's protocol codec on MicroPython, as a peer of the test's (CPython's).

    protocol_peer.py DRIVE

Requests come over hostpipe, one at a time:

- ``new <seq>``: a fresh Decoder (every message type accepted) and an Encoder
  numbering from ``seq``;
- ``feed <hex>``: decode these bytes; the answer is JSON with the messages decoded
  (their repr), those messages encoded again by this side's Encoder, the Decoder's
  counters and its last error;
- ``bye``: end.
"""

import json
import sys

sys.path.insert(0, sys.argv[1])

import hostpipe  # noqa: E402

from tablefw import protocol  # noqa: E402

decoder = None
encoder = None
reply = "ready"
while True:
    request = hostpipe.call(reply)
    verb, _, rest = request.partition(" ")
    if verb == "bye":
        break
    if verb == "new":
        decoder = protocol.Decoder()
        encoder = protocol.Encoder(int(rest))
        reply = "ok"
    elif verb == "feed":
        messages = decoder.feed(bytes.fromhex(rest))
        encoded = []
        for message in messages:
            if isinstance(message, protocol.Message):
                encoded.append(encoder.encode(message))
        reply = json.dumps({
            "messages": [repr(message) for message in messages],
            "encoded": b"".join(encoded).hex(),
            "counts": decoder.counts,
            "last_error": decoder.last_error,
        })
    else:
        raise ValueError("unknown request %r" % request)
