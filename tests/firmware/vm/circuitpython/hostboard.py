"""The wires around the firmware in the VM: a client of the test's board model.

CircuitPython's hardware modules (board, digitalio, busio, usb_cdc,
microcontroller ...) are built into the board's firmware; in the VM they are the
small modules beside this one, and whatever crosses a wire goes to the test
(tests/firmware/vm_board.py) through ``hostpipe`` (tests/firmware/vm/run.mjs
--pipe), one request at a time.

A request is what piled up since the last one, then the operation:

- pin events, 7 bytes each: ``E``, pin number, level, the time (uint32 LE, us),
  so that the test's model sees a reset pulse or a multiplexer switch when it
  happened;
- the operation: its letter, the time (uint32 LE), its bytes.

The answer: the test's time (uint32 LE; the VM's clock never runs behind it), the
number of input pins that changed and a (pin, level) pair for each, then what the
operation returned.

Both travel through two buffers allocated here once, so that a wire costs the
heap nothing, as on the board: heap figures taken while the firmware runs are
the firmware's own. Time is the VM's microsecond clock (``time.ticks_us``,
unwrapped): the firmware runs at the VM's speed and the chip models follow it.
"""

import time

import hostpipe
import uctypes

SIZE = 8192
_requests = bytearray(SIZE)
_answers = bytearray(SIZE)
hostpipe.setup(uctypes.addressof(_requests), uctypes.addressof(_answers), SIZE)
_state = [0, time.ticks_us(), 0, 0]  # bytes queued, last ticks, microseconds, payload offset
_inputs = bytearray(32)  # input levels the test set: 0 low, 1 high, 2 not set, 3 ask the host
for _pin in range(32):
    _inputs[_pin] = 2
calls = [0]


def now_us():
    ticks = time.ticks_us()
    _state[2] += time.ticks_diff(ticks, _state[1])
    _state[1] = ticks
    return _state[2]


def put(byte):
    used = _state[0]
    if used >= SIZE:
        raise RuntimeError("hostboard: request buffer full")
    _requests[used] = byte
    _state[0] = used + 1


def _put_time():
    now = now_us()
    put(now & 0xFF)
    put((now >> 8) & 0xFF)
    put((now >> 16) & 0xFF)
    put((now >> 24) & 0xFF)


def pin_set(number, level):
    put(69)  # "E"
    put(number)
    put(1 if level else 0)
    _put_time()


def pin_level(number, default):
    level = _inputs[number]
    if level == 2:
        return default
    if level == 3:  # a chip's output whose level changes with time (an IRQ line): read it now
        _pin_request[0] = number
        request(80, _pin_request, 0, 1)  # "P"
        return answer(0) == 1
    return level == 1


_pin_request = bytearray(1)


def begin(letter):
    """Start an operation; its bytes follow with put(), finish() sends it."""
    put(letter)
    _put_time()


def request(letter, data=None, start=0, end=0):
    """Send one operation with ``data[start:end]``; returns the answer's length.
    The answer's payload is ``answer(i)`` for i in range(length)."""
    begin(letter)
    if data is not None:
        for index in range(start, end):
            put(data[index])
    return finish()


def finish():
    length = hostpipe.exchange(_state[0])
    _state[0] = 0
    calls[0] += 1
    stamp = _answers[0] | (_answers[1] << 8) | (_answers[2] << 16) | (_answers[3] << 24)
    now = now_us()
    if stamp > now:
        _state[2] = stamp
    changes = _answers[4]
    for index in range(changes):
        _inputs[_answers[5 + 2 * index]] = _answers[6 + 2 * index]
    offset = 5 + 2 * changes
    _state[3] = offset
    return length - offset


def answer(index):
    return _answers[_state[3] + index]


def answer_u32():
    return answer(0) | (answer(1) << 8) | (answer(2) << 16) | (answer(3) << 24)
