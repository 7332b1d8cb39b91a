"""usb_cdc: the data channel is a pipe to the test's protocol peer (the host's codec)."""

import hostboard


class Serial:
    def __init__(self):
        self.timeout = 1.0
        self.write_timeout = None
        self.connected = True

    @property
    def in_waiting(self):
        hostboard.request(73)  # "I"
        return hostboard.answer_u32()

    def read(self, size=1):
        hostboard.begin(85)  # "U"
        hostboard.put(size & 0xFF)
        hostboard.put((size >> 8) & 0xFF)
        count = hostboard.finish()
        return bytes([hostboard.answer(index) for index in range(count)])

    def write(self, data):
        hostboard.request(79, data, 0, len(data))  # "O"
        return len(data)

    def reset_input_buffer(self):
        pass


console = Serial()
data = Serial()
enabled = None


def enable(console=True, data=False):
    global enabled
    enabled = (console, data)
