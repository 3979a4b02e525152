"""TLS to the engine service: the roots to trust, and a client certificate for mutual TLS."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import grpc


@dataclass(frozen=True, slots=True)
class Tls:
    """How a client speaks TLS to a service started with ``--tls-cert``.

    Attributes:
        root_certificates: PEM certificates of the CAs to trust (``None``: the system's).
        private_key: PEM key of the client's certificate, for a service with
            ``--tls-client-ca`` (mutual TLS); with ``certificate_chain``.
        certificate_chain: PEM certificate chain the client shows.
    """

    root_certificates: bytes | None = None
    private_key: bytes | None = None
    certificate_chain: bytes | None = None

    def __post_init__(self) -> None:
        if (self.private_key is None) != (self.certificate_chain is None):
            raise ValueError("a client certificate needs both private_key and certificate_chain")

    @classmethod
    def from_files(
        cls,
        root_certificates: str | Path | None = None,
        private_key: str | Path | None = None,
        certificate_chain: str | Path | None = None,
    ) -> Tls:
        """The same, read from PEM files (each optional, as above)."""

        def read(path: str | Path | None) -> bytes | None:
            return None if path is None else Path(path).read_bytes()

        return cls(read(root_certificates), read(private_key), read(certificate_chain))

    def credentials(self) -> grpc.ChannelCredentials:
        """The channel credentials of ``grpc.secure_channel``."""
        return grpc.ssl_channel_credentials(
            self.root_certificates, self.private_key, self.certificate_chain
        )
