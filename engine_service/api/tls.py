"""TLS on the gRPC port: the server's certificate, and client certificates once a CA is given.

``--tls-cert`` and ``--tls-key`` (PEM files) make the gRPC port speak TLS only; a plaintext
client then fails its handshake. ``--tls-client-ca`` adds mutual TLS: a client must show a
certificate that this CA signed, or its handshake fails too. The files are read and checked
(the key matches the certificate, the CA parses) before the server starts, so a wrong path
stops the start with a message instead of failing each handshake later; they are read once,
so new certificates take a restart (a process group restarts one child at a time).

The browser table's port (``--web-port``) stays plaintext HTTP: it is meant for loopback
(:mod:`engine_service.api.exposure` refuses it on another address without
``--insecure-public``).
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from pathlib import Path

import grpc

from engine_service.api.exposure import StartRefused
from engine_service.settings import Settings


class TlsSettingsError(StartRefused):
    """TLS settings that cannot be served with: a missing half, an unreadable or bad file."""


@dataclass(frozen=True, slots=True)
class TlsFiles:
    """The PEM bytes the gRPC port serves with."""

    certificate_chain: bytes
    private_key: bytes
    client_ca: bytes | None = None


def tls_files(settings: Settings) -> TlsFiles | None:
    """The TLS files the settings name, read and checked; ``None`` for a plaintext port.

    Raises:
        TlsSettingsError: only one of certificate and key, a client CA without them, or a
            file that cannot be read or does not hold what it should.
    """
    if not settings.tls_cert and not settings.tls_key:
        if settings.tls_client_ca:
            raise TlsSettingsError("--tls-client-ca needs --tls-cert and --tls-key as well")
        return None
    if not settings.tls_cert or not settings.tls_key:
        raise TlsSettingsError("TLS needs both --tls-cert and --tls-key (PEM files)")
    checker = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    try:
        checker.load_cert_chain(settings.tls_cert, settings.tls_key)
        if settings.tls_client_ca:
            checker.load_verify_locations(settings.tls_client_ca)
        client_ca = Path(settings.tls_client_ca).read_bytes() if settings.tls_client_ca else None
        return TlsFiles(
            Path(settings.tls_cert).read_bytes(), Path(settings.tls_key).read_bytes(), client_ca
        )
    except (OSError, ssl.SSLError) as error:
        named = f"{settings.tls_cert}, {settings.tls_key}"
        if settings.tls_client_ca:
            named += f", {settings.tls_client_ca}"
        raise TlsSettingsError(f"TLS files ({named}): {error}") from error


def bind(server: grpc.aio.Server, settings: Settings) -> int:
    """Add the gRPC port, with TLS when the settings ask for it; the port bound (0: none).

    Raises:
        TlsSettingsError: see :func:`tls_files`.
    """
    files = tls_files(settings)
    if files is None:
        return server.add_insecure_port(settings.address)
    credentials = grpc.ssl_server_credentials(
        [(files.private_key, files.certificate_chain)],
        root_certificates=files.client_ca,
        require_client_auth=files.client_ca is not None,
    )
    return server.add_secure_port(settings.address, credentials)
