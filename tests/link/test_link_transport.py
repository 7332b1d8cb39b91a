"""The byte transports: in-memory pipes and pyserial ports."""

from __future__ import annotations

import errno
import threading

import pytest
import serial

from homeworlds.link import PipeTransport, SerialTransport, Transport, TransportError


def test_pipe_pair_carries_bytes_both_ways():
    host, device = PipeTransport.pair("t")
    assert isinstance(host, Transport)
    host.open()
    device.open()
    device.write(b"one\n")
    device.write(b"two\n")
    assert host.read(5) == b"one\nt"
    assert host.read() == b"wo\n"
    assert host.read() == b""
    host.write(b"back\n")
    assert device.read() == b"back\n"


def test_pipe_loses_what_is_written_while_the_other_end_is_closed():
    host, device = PipeTransport.pair()
    device.open()
    device.write(b"nobody listens\n")
    host.open()
    assert host.read() == b""


def test_pipe_open_flushes_stale_input():
    host, device = PipeTransport.pair()
    host.open()
    device.open()
    device.write(b"stale\n")
    host.close()
    host.open()
    assert host.read() == b""


def test_pipe_read_waits_for_data_from_another_thread():
    host, device = PipeTransport.pair()
    host.open()
    device.open()
    threading.Timer(0.01, device.write, args=(b"late\n",)).start()
    assert host.read(100, timeout=5.0) == b"late\n"


def test_pipe_unplug_fails_every_operation_until_replugged():
    host, device = PipeTransport.pair("t")
    host.open()
    device.open()
    host.unplug("cable pulled")
    for action in (host.read, lambda: host.write(b"x"), device.read):
        with pytest.raises(TransportError, match="cable pulled"):
            action()
    host.close()
    with pytest.raises(TransportError, match="cannot open t:host: cable pulled"):
        host.open()
    host.replug()
    host.open()
    device.write(b"ok\n")
    assert host.read() == b"ok\n"


def test_pipe_refuses_io_when_closed():
    host, _device = PipeTransport.pair("t")
    with pytest.raises(TransportError, match="t:host is not open"):
        host.read()


def test_serial_loopback_url():
    port = SerialTransport("loop://")
    assert not port.is_open
    port.open()
    try:
        assert port.is_open
        port.write(b"12 HB *0000\n")
        assert port.read(100, 0.5) == b"12 HB *0000\n"
        assert port.read(100, 0) == b""
        assert port.read(100, 0.01) == b""
    finally:
        port.close()
    assert not port.is_open
    with pytest.raises(TransportError, match="loop:// is not open"):
        port.read()


def test_serial_open_flushes_stale_input(monkeypatch):
    # A port that received a line of an earlier session just as it opened.
    real_serial_for_url = serial.serial_for_url

    def port_with_stale_input(url, *args, **kwargs):
        instance = real_serial_for_url(url, *args, **kwargs)
        real_open = instance.open

        def open_and_receive():
            real_open()
            instance.write(b"stale line from the last session\n")  # loop:// echoes it

        instance.open = open_and_receive
        return instance

    monkeypatch.setattr(serial, "serial_for_url", port_with_stale_input)
    port = SerialTransport("loop://")
    port.open()
    try:
        assert port.read(100, 0.05) == b""
        port.write(b"fresh\n")
        assert port.read(100, 0.5) == b"fresh\n"
    finally:
        port.close()


def test_serial_bad_url_is_a_transport_error():
    with pytest.raises(TransportError, match="cannot open nosuch://x"):
        SerialTransport("nosuch://x").open()


def test_serial_missing_device_names_the_port_and_the_fix():
    with pytest.raises(TransportError) as info:
        SerialTransport("/nonexistent/ttyACM7").open()
    text = str(info.value)
    assert text.startswith("cannot open /nonexistent/ttyACM7")
    assert "plugged in" in text


def test_serial_permission_denied_suggests_the_dialout_group(monkeypatch):
    def denied(url, *args, **kwargs):
        raise serial.SerialException(
            errno.EACCES, f"could not open port {url}: [Errno 13] Permission denied: '{url}'")

    monkeypatch.setattr(serial, "serial_for_url", denied)
    with pytest.raises(TransportError, match="dialout"):
        SerialTransport("/dev/ttyACM0").open()


def test_serial_busy_port_names_the_likely_culprits(monkeypatch):
    def busy(url, *args, **kwargs):
        raise serial.SerialException(
            errno.EAGAIN, f"Could not exclusively lock port {url}: [Errno 11] Resource "
                          "temporarily unavailable")

    monkeypatch.setattr(serial, "serial_for_url", busy)
    with pytest.raises(TransportError, match="another program holds the port"):
        SerialTransport("/dev/ttyACM0").open()


def test_serial_rejects_an_empty_name():
    with pytest.raises(ValueError, match="device path or URL"):
        SerialTransport("")
