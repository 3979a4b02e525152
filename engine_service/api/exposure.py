"""Checks before a server starts: who could reach it, and whether its address is served already.

* :func:`check_exposure`: an address other than loopback (or a Unix socket) is served only
  with TLS and service keys, unless ``--insecure-public`` says it is meant so. The web port
  shares both (the same certificate, the same access door), so it needs nothing more. On
  loopback anything goes: ``make run`` serves plaintext, keyless, with the browser table.
* :func:`check_unserved`: the server binds with ``SO_REUSEPORT`` (a process group shares one
  address), so a stray second server would bind a served address without an error and take
  a share of the new connections. Before starting, the address is bound once *without*
  ``SO_REUSEPORT``: that fails while anything listens there. A process of a group started
  on purpose (the launcher's children, or ``--join-group``) skips the probe.
"""

from __future__ import annotations

import errno
import ipaddress
import logging
import socket
from typing import Final

from engine_service.settings import Settings

log = logging.getLogger(__name__)
LOCAL_SCHEMES: Final = ("unix:", "unix-abstract:")
"""gRPC addresses that no other host can reach."""


class StartRefused(ValueError):
    """Settings the service will not start with; the message says what to change."""


def split_address(address: str) -> tuple[str, str]:
    """The host (without brackets) and the port of a gRPC ``host:port`` address.

    >>> split_address("[::1]:50051"), split_address("0.0.0.0:1")
    (('::1', '50051'), ('0.0.0.0', '1'))
    """
    host, _, port = address.rpartition(":")
    return host.strip("[]"), port


def is_local(address: str) -> bool:
    """Whether only this host can reach ``address``: a loopback host, or a Unix socket.

    A host name counts when every address it resolves to is loopback.

    >>> is_local("127.0.0.1:1"), is_local("[::1]:1"), is_local("0.0.0.0:1"), is_local("[::]:1")
    (True, True, False, False)
    """
    if address.startswith(LOCAL_SCHEMES):
        return True
    host, _ = split_address(address)
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        pass
    if not host:
        return False
    try:
        found = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except OSError:
        return False
    return bool(found) and all(ipaddress.ip_address(info[4][0]).is_loopback for info in found)


def check_exposure(settings: Settings) -> None:
    """Refuse to serve beyond loopback without TLS and keys, unless told to.

    Raises:
        StartRefused: a non-loopback address lacks TLS or keys (both ports share them), and
            ``insecure_public`` is off.
    """
    if is_local(settings.address):
        if not settings.tls_cert:
            log.info("plaintext gRPC on a loopback address", extra={"address": settings.address})
        return
    gaps = []
    if not settings.tls_cert:
        gaps.append("without TLS (--tls-cert, --tls-key)")
    if not settings.service_keys:
        gaps.append("without service keys (--service-key)")
    if not gaps:
        return
    if settings.insecure_public:
        log.warning(
            "serving a non-loopback address insecurely (--insecure-public)",
            extra={"address": settings.address, "gaps": gaps},
        )
        return
    raise StartRefused(
        f"{settings.address} is not a loopback address, and it would be served "
        f"{' and '.join(gaps)}: configure them, serve 127.0.0.1, or pass "
        "--insecure-public (ENGINE_INSECURE_PUBLIC=1) to serve it so on purpose"
    )


def check_unserved(settings: Settings) -> None:
    """Refuse an address something listens on already, unless this joins a group there.

    Raises:
        StartRefused: binding the address without ``SO_REUSEPORT`` finds it in use.
    """
    host, port = split_address(settings.address)
    if settings.join_group or settings.address.startswith(LOCAL_SCHEMES) or port in ("", "0"):
        return
    try:
        found = socket.getaddrinfo(
            host or None, int(port), type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
    except (OSError, ValueError):
        return  # gRPC's own bind reports an address it cannot use
    for family, kind, proto, _, where in found:
        with socket.socket(family, kind, proto) as probe:
            # SO_REUSEADDR as gRPC sets it: a closed server's TIME_WAIT is no server.
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(where)
            except OSError as error:
                if error.errno != errno.EADDRINUSE:
                    continue
                raise StartRefused(
                    f"{settings.address} is served already (something listens on it): stop "
                    "that server or choose another --address; a process "
                    "meant to share the address with its group passes --join-group "
                    "(ENGINE_JOIN_GROUP=1)"
                ) from error
