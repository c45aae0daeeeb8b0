"""The proxy's local certificate authority: one CA made on first use, and a leaf certificate per host
it signs, both kept as PEM files under roost's data directory so a client trusts them across runs.

Layout of the directory (`<data dir>/proxy-ca`):

    ca.pem                  the CA certificate: what clients are told to trust
    ca-key.pem              its private key (0600)
    hosts/<host>.pem        a leaf certificate for one host, signed by the CA
    hosts/<host>-key.pem    its private key (0600)
"""

from __future__ import annotations

import contextlib
import datetime
import ipaddress
import os
import re
import secrets
import ssl
import tempfile
from collections.abc import Iterator
from pathlib import Path

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

try:  # only to serialise two processes creating the CA at once; absent on Windows
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None  # type: ignore[assignment]

CA_DIR_NAME = "proxy-ca"
CA_CERT_FILE = "ca.pem"
CA_KEY_FILE = "ca-key.pem"
HOSTS_DIR = "hosts"

CA_LIFETIME = datetime.timedelta(days=3650)
# Below the 398 days some TLS clients (Apple's) accept for a leaf; re-minted when near its end.
LEAF_LIFETIME = datetime.timedelta(days=365)
LEAF_RENEW_BEFORE = datetime.timedelta(days=7)
# Clocks of other machines or containers may lag this one a little.
BACKDATE = datetime.timedelta(days=1)

_HOST_NAME = re.compile(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$")


class CertificateAuthority:
    """The CA in `directory`, created when first needed; hands out a TLS server context per host."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._ca: tuple[x509.Certificate, ec.EllipticCurvePrivateKey] | None = None
        self._contexts: dict[str, ssl.SSLContext] = {}

    @classmethod
    def in_data_dir(cls, data_dir: Path) -> CertificateAuthority:
        return cls(data_dir / CA_DIR_NAME)

    @property
    def cert_path(self) -> Path:
        return self.directory / CA_CERT_FILE

    @property
    def key_path(self) -> Path:
        return self.directory / CA_KEY_FILE

    def ensure(self) -> Path:
        """The CA certificate's path, creating the CA first if there is none."""
        self._load_or_create()
        return self.cert_path

    def server_context(self, host: str) -> ssl.SSLContext:
        """A TLS server context presenting a certificate for `host` signed by this CA."""
        host = host.lower().rstrip(".")
        context = self._contexts.get(host)
        if context is None:
            cert_file, key_file = self._leaf_files(host)
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.minimum_version = ssl.TLSVersion.TLSv1_2
            context.load_cert_chain(cert_file, key_file)
            # The proxy speaks HTTP/1.1 only; offering nothing else keeps clients from trying h2.
            context.set_alpn_protocols(["http/1.1"])
            self._contexts[host] = context
        return context

    # ---- the CA --------------------------------------------------------------------------------

    def _load_or_create(self) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
        if self._ca is None:
            self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
            with _locked(self.directory / ".lock"):
                if not (self.cert_path.exists() and self.key_path.exists()):
                    self._create()
                self._ca = self._read()
        return self._ca

    def _read(self) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
        cert = x509.load_pem_x509_certificate(self.cert_path.read_bytes())
        key = serialization.load_pem_private_key(self.key_path.read_bytes(), password=None)
        if not isinstance(key, ec.EllipticCurvePrivateKey):
            raise ValueError(f"{self.key_path} is not the EC key roost writes; remove {self.directory}")
        return cert, key

    def _create(self) -> None:
        key = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name(
            [
                x509.NameAttribute(NameOID.COMMON_NAME, "roost local proxy CA"),
                x509.NameAttribute(NameOID.ORGANIZATION_NAME, "roost"),
            ]
        )
        now = datetime.datetime.now(datetime.UTC)
        public = key.public_key()
        cert = (
            x509.CertificateBuilder()
            .subject_name(name)
            .issuer_name(name)
            .public_key(public)
            .serial_number(_serial())
            .not_valid_before(now - BACKDATE)
            .not_valid_after(now + CA_LIFETIME)
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(
                x509.KeyUsage(
                    digital_signature=True,
                    content_commitment=False,
                    key_encipherment=False,
                    data_encipherment=False,
                    key_agreement=False,
                    key_cert_sign=True,
                    crl_sign=True,
                    encipher_only=False,
                    decipher_only=False,
                ),
                critical=True,
            )
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(public), critical=False)
            .sign(key, hashes.SHA256())
        )
        # Key first: a certificate on disk always has its key beside it.
        _write_file(self.key_path, _key_pem(key), private=True)
        _write_file(self.cert_path, cert.public_bytes(serialization.Encoding.PEM), private=False)

    # ---- leaf certificates ---------------------------------------------------------------------

    def _leaf_files(self, host: str) -> tuple[Path, Path]:
        if not _HOST_NAME.match(host) and not _is_ip(host):
            raise ValueError(f"not a host name: {host!r}")
        ca_cert, ca_key = self._load_or_create()
        hosts = self.directory / HOSTS_DIR
        hosts.mkdir(exist_ok=True, mode=0o700)
        cert_file, key_file = hosts / f"{host}.pem", hosts / f"{host}-key.pem"
        # Locked so that two proxies minting the same host never pair one's key with the other's cert.
        with _locked(self.directory / ".lock"):
            if not _usable_leaf(cert_file, key_file, ca_cert):
                key = ec.generate_private_key(ec.SECP256R1())
                cert = _leaf_certificate(host, key.public_key(), ca_cert, ca_key)
                _write_file(key_file, _key_pem(key), private=True)
                _write_file(cert_file, cert.public_bytes(serialization.Encoding.PEM), private=False)
        return cert_file, key_file


def _leaf_certificate(
    host: str,
    public: ec.EllipticCurvePublicKey,
    ca_cert: x509.Certificate,
    ca_key: ec.EllipticCurvePrivateKey,
) -> x509.Certificate:
    now = datetime.datetime.now(datetime.UTC)
    alt_name: x509.GeneralName = (
        x509.IPAddress(ipaddress.ip_address(host)) if _is_ip(host) else x509.DNSName(host)
    )
    ca_key_id = ca_cert.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value
    return (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, host)]))
        .issuer_name(ca_cert.subject)
        .public_key(public)
        .serial_number(_serial())
        .not_valid_before(now - BACKDATE)
        .not_valid_after(min(now + LEAF_LIFETIME, ca_cert.not_valid_after_utc))
        .add_extension(x509.SubjectAlternativeName([alt_name]), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=False,
                crl_sign=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(public), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(ca_key_id), critical=False
        )
        .sign(ca_key, hashes.SHA256())
    )


def _usable_leaf(cert_file: Path, key_file: Path, ca_cert: x509.Certificate) -> bool:
    """A cached leaf is reused while it is signed by the current CA and not near its end."""
    if not (cert_file.exists() and key_file.exists()):
        return False
    try:
        cert = x509.load_pem_x509_certificate(cert_file.read_bytes())
        cert.verify_directly_issued_by(ca_cert)
    except (ValueError, TypeError, OSError, InvalidSignature):
        return False
    now = datetime.datetime.now(datetime.UTC)
    return cert.not_valid_after_utc - LEAF_RENEW_BEFORE > now


def _serial() -> int:
    return secrets.randbits(64) | 1 << 63  # positive, 64 bits, never zero


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def _write_file(path: Path, data: bytes, *, private: bool) -> None:
    """Write through a temporary file renamed into place, so a reader never sees half a file; a key
    file is created 0600 (never readable by others, even for a moment)."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        os.fchmod(handle, 0o600 if private else 0o644)
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    if fcntl is None:  # pragma: no cover
        yield
        return
    with open(path, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
