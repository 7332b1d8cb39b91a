"""A real Eclipse Mosquitto broker for the event tests (Debian's ``mosquitto`` package,
installed by ``make mosquitto-bin``): started on a free localhost port with a generated
configuration, killed (SIGKILL) and started again on the same port at will.

Without the binary the tests skip on a user's machine and FAIL under CI=true.
"""

from __future__ import annotations

import datetime
import getpass
import ipaddress
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from tests.shared import in_ci

SEARCH = ("/usr/sbin", "/usr/local/sbin", "/usr/bin")


def mosquitto_binary(name: str = "mosquitto") -> str:
    found = shutil.which(name) or next(
        (str(Path(d) / name) for d in SEARCH if (Path(d) / name).is_file()), None)
    if found is None:
        message = (f"{name} is not installed: `make mosquitto-bin` installs it "
                   "(sudo apt-get install mosquitto)")
        if in_ci():
            pytest.fail(f"{message}, but CI is set: the event tests must run", pytrace=False)
        pytest.skip(message)
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Broker:
    """One mosquitto process; ``url`` is what tables and the hub are given."""

    def __init__(self, directory: Path, *, tls: bool = False, users: dict[str, str] | None = None,
                 password_file: Path | None = None, acl_file: Path | None = None):
        """``users``: accounts made with mosquitto_passwd; or ``password_file`` and
        ``acl_file`` as ``homeworlds hub-keys`` writes them."""
        self.directory = directory
        self.password_file, self.acl_file = password_file, acl_file
        self.port = free_port()
        self.tls = tls
        self.users = users or {}
        self.process: subprocess.Popen | None = None
        self.binary = mosquitto_binary()
        self.ca_file: Path | None = None
        self.config = directory / "mosquitto.conf"
        self._write_config()

    @property
    def url(self) -> str:
        return f"{'mqtts' if self.tls else 'mqtt'}://127.0.0.1:{self.port}"

    def _write_config(self) -> None:
        # Run as root, mosquitto drops to the "mosquitto" user, which cannot read a test's
        # private temporary directory: it stays the user who runs the tests.
        lines = [f"user {getpass.getuser()}",
                 f"listener {self.port} 127.0.0.1", "persistence false",
                 "log_dest stderr", "log_type error", "log_type warning",
                 "max_queued_messages 10000", "max_inflight_messages 100"]
        if self.users:
            passwd = self.directory / "passwd"
            passwd.write_text("")
            for user, password in self.users.items():
                subprocess.run([mosquitto_binary("mosquitto_passwd"), "-b", str(passwd),
                                user, password], check=True, capture_output=True)
            passwd.chmod(0o600)
            lines += ["allow_anonymous false", f"password_file {passwd}"]
        elif self.password_file is not None:
            lines += ["allow_anonymous false", f"password_file {self.password_file}"]
            if self.acl_file is not None:
                lines.append(f"acl_file {self.acl_file}")
        else:
            lines.append("allow_anonymous true")
        if self.tls:
            self.ca_file, cert, key = make_certificates(self.directory)
            lines += [f"cafile {self.ca_file}", f"certfile {cert}", f"keyfile {key}"]
        self.config.write_text("\n".join(lines) + "\n")

    def start(self, timeout: float = 10.0) -> None:
        assert self.process is None or self.process.poll() is not None
        self.log = open(self.directory / "mosquitto.log", "ab")
        self.process = subprocess.Popen([self.binary, "-c", str(self.config)],
                                        stdout=self.log, stderr=self.log,
                                        start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"mosquitto exited with {self.process.returncode}: "
                                   f"{(self.directory / 'mosquitto.log').read_text()[-2000:]}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.02)
        raise RuntimeError(f"mosquitto did not listen on port {self.port} within {timeout} s")

    def kill(self) -> None:
        """SIGKILL: no clean disconnect, nothing saved (persistence is off)."""
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(5)
        if getattr(self, "log", None):
            self.log.close()


def make_certificates(directory: Path) -> tuple[Path, Path, Path]:
    """A throw-away CA and a server certificate for 127.0.0.1 / localhost."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "homeworlds test CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name)
          .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
          .not_valid_before(now - datetime.timedelta(minutes=5))
          .not_valid_after(now + datetime.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True,
                                       crl_sign=True, content_commitment=False,
                                       key_encipherment=False, data_encipherment=False,
                                       key_agreement=False, encipher_only=False,
                                       decipher_only=False), critical=True)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
            .issuer_name(ca_name).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([
                x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                critical=False)
            .sign(ca_key, hashes.SHA256()))
    paths = directory / "ca.pem", directory / "server.pem", directory / "server.key"
    paths[0].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths[1].write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    paths[2].write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.TraditionalOpenSSL,
                                           serialization.NoEncryption()))
    paths[2].chmod(0o600)
    return paths
