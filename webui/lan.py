"""Serving the home network: this computer's address, the invitation link and its QR code, and
a self-signed certificate for ``--https`` (phones only lend their camera to HTTPS pages)."""

from __future__ import annotations

import datetime
import ipaddress
import logging
import os
import socket
from pathlib import Path

import segno

__all__ = ["invite_url", "lan_address", "qr_svg", "qr_text", "self_signed_certificate"]

log = logging.getLogger(__name__)


def lan_address() -> str:
    """This computer's address on the local network (``127.0.0.1`` when it has none)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            # No packet is sent: connecting a UDP socket only picks the outgoing interface.
            probe.connect(("10.255.255.255", 1))
            address = str(probe.getsockname()[0])
        except OSError:
            address = "127.0.0.1"
    return address


def invite_url(host: str, port: int, token: str | None, https: bool = False) -> str:
    """The address a phone at the table opens (with the access token when there is one)."""
    scheme = "https" if https else "http"
    shown = f"[{host}]" if ":" in host else host
    return f"{scheme}://{shown}:{port}/" + (f"?token={token}" if token else "")


def qr_svg(text: str) -> str:
    """``text`` as a QR code, an SVG document."""
    svg: str = segno.make(text, error="m").svg_inline(scale=6, dark="#111", light="#fff")
    return svg


def qr_text(text: str) -> str:
    """``text`` as a QR code drawn with block characters, for the terminal."""
    qr = segno.make(text, error="l")
    rows = [[bool(v) for v in row] for row in qr.matrix_iter(scale=1, border=2)]
    if len(rows) % 2:
        rows.append([False] * len(rows[0]))
    # Two modules per character (upper and lower half blocks), light on dark terminals reversed.
    chars = {(False, False): "█", (True, False): "▄", (False, True): "▀", (True, True): " "}
    return "\n".join(
        "".join(chars[(top, bottom)] for top, bottom in zip(rows[i], rows[i + 1], strict=True))
        for i in range(0, len(rows), 2)
    )


def self_signed_certificate(folder: Path, hosts: list[str]) -> tuple[Path, Path]:
    """A certificate and key (PEM) in ``folder`` valid for ``hosts``, made when missing or when
    it does not name every host (the computer moved to another network)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    wanted = sorted(set(hosts))
    if cert_path.exists() and key_path.exists():
        try:
            existing = x509.load_pem_x509_certificate(cert_path.read_bytes())
            names = existing.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
            covered = {str(v) for v in names.get_values_for_type(x509.IPAddress)}
            covered |= set(names.get_values_for_type(x509.DNSName))
            not_expired = existing.not_valid_after_utc > datetime.datetime.now(datetime.UTC)
            if set(wanted) <= covered and not_expired:
                return cert_path, key_path
        except (ValueError, x509.ExtensionNotFound) as exc:
            log.warning("the certificate in %s cannot be used (%s): making a new one", folder, exc)

    key = ec.generate_private_key(ec.SECP256R1())
    alt_names: list[x509.GeneralName] = []
    for host in wanted:
        try:
            alt_names.append(x509.IPAddress(ipaddress.ip_address(host)))
        except ValueError:
            alt_names.append(x509.DNSName(host))
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "rolit table page")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=825))
        .add_extension(x509.SubjectAlternativeName(alt_names), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                   serialization.NoEncryption()))
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    log.info("made a self-signed certificate for %s in %s", ", ".join(wanted), folder)
    return cert_path, key_path
