"""Calling a URL a user gave us without letting them aim the server at itself.

A user's own OpenAI-compatible endpoint is a URL the server fetches with its
own network position: left unchecked it could reach the metadata server (and
the service account's token), the emulators, or anything on the private
network. So a base URL is accepted only when it is https and every address its
host resolves to is public; the client built for it connects to the address
that was checked (the URL's host stays in the Host header and in TLS, so the
certificate is still verified for the name), which a second, different DNS
answer cannot switch; and it follows no redirect, which could point anywhere.
Under the emulators alone, http and https to 127.0.0.1 and localhost are also
allowed, so that a local Ollama or llama.cpp server works in development.
"""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

if TYPE_CHECKING:
    import httpx2

#: Hosts refused by name whatever they resolve to (a cloud's metadata server).
METADATA_HOSTS = frozenset({"metadata.google.internal", "metadata.google.internal.", "metadata"})
#: Hosts allowed over http under the emulators only, and the loopback they must resolve to.
LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost"})
#: Refused whatever else the address library says of them (it changes between Python versions).
_REFUSED_NETWORKS = tuple(
    ipaddress.ip_network(n)
    for n in (
        "0.0.0.0/8",
        "10.0.0.0/8",
        "100.64.0.0/10",  # carrier-grade NAT
        "127.0.0.0/8",
        "169.254.0.0/16",  # link-local, the metadata server among them
        "172.16.0.0/12",
        "192.0.0.0/24",
        "192.168.0.0/16",
        "198.18.0.0/15",
        "224.0.0.0/4",
        "240.0.0.0/4",
        "::/128",
        "::1/128",
        "64:ff9b::/96",  # NAT64: the IPv4 address inside is checked instead
        "fc00::/7",  # unique-local
        "fe80::/10",
        "ff00::/8",
    )
)
MAX_URL_LENGTH = 500

Resolver = Callable[[str, int], Sequence[str]]


class Refused(ValueError):
    """A base URL the server will not call; the message says why, naming no address."""


@dataclass(frozen=True)
class Checked:
    """A base URL that passed, and the one address every call to it connects to."""

    url: str  # scheme://host[:port]/path, no trailing slash
    scheme: str
    host: str
    port: int
    address: str


def local_allowed(env: Mapping[str, str] | None = None) -> bool:
    """True under the Functions emulator only (scripts/dev, the tests)."""
    env = os.environ if env is None else env
    return bool(env.get("FUNCTIONS_EMULATOR") == "true")


def _system_resolver(host: str, port: int) -> list[str]:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as e:
        raise Refused("its host does not resolve") from e
    return [str(info[4][0]) for info in infos]


def public(address: str) -> bool:
    """The address is on the public internet: none of the refused networks,
    and the IPv4 address inside a mapped, compatible or NAT64 IPv6 one public too."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address):
        inner = ip.ipv4_mapped or ip.sixtofour or (ip.teredo[1] if ip.teredo else None)
        if inner is None and ip in ipaddress.ip_network("64:ff9b::/96"):
            inner = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if inner is None and int(ip) >> 32 == 0:  # ::a.b.c.d, the deprecated compatible form
            inner = ipaddress.IPv4Address(int(ip))
        if inner is not None:
            return public(str(inner))
    if any(ip in net for net in _REFUSED_NETWORKS if net.version == ip.version):
        return False
    return ip.is_global and not ip.is_multicast and not ip.is_reserved


def check(url: Any, *, local_ok: bool | None = None, resolve: Resolver | None = None) -> Checked:
    """The URL, checked and pinned to one of its host's addresses; Refused when
    it is not https, names a metadata host, or any address it resolves to is
    not public (127.0.0.1 / localhost over http too under the emulators)."""
    if not isinstance(url, str) or not url.strip() or len(url) > MAX_URL_LENGTH:
        raise Refused(f"must be a URL of at most {MAX_URL_LENGTH} characters")
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as e:
        raise Refused("is not a valid URL") from e
    host = (parts.hostname or "").lower()
    if parts.username is not None or parts.password is not None or parts.query or parts.fragment:
        raise Refused("must not hold credentials, a query or a fragment")
    local = (local_allowed() if local_ok is None else local_ok) and host in LOCAL_HOSTS
    if parts.scheme not in (("http", "https") if local else ("https",)):
        raise Refused("must be https")
    if not host or host in METADATA_HOSTS:
        raise Refused("names a host the server does not call")
    port = port or (443 if parts.scheme == "https" else 80)
    addresses = list((resolve or _system_resolver)(host, port))
    if not addresses:
        raise Refused("its host does not resolve")
    allowed = (lambda a: ipaddress.ip_address(a.split("%", 1)[0]).is_loopback) if local else public
    if not all(allowed(a) for a in addresses):
        raise Refused("resolves to an address that is not public")
    shown = f"[{host}]" if ":" in host else host
    netloc = shown if parts.port is None else f"{shown}:{port}"
    base = f"{parts.scheme}://{netloc}{parts.path}".rstrip("/")
    return Checked(base, parts.scheme, host, port, addresses[0])


def pinned_client(checked: Checked, timeout: Any = None, inner: httpx2.BaseTransport | None = None) -> httpx2.Client:
    """An HTTP client that sends every request to `checked.address`, follows
    no redirect and reads no proxy from the environment."""
    import httpx2

    transport = _pinned(checked, inner or httpx2.HTTPTransport(retries=0))
    options: dict[str, Any] = {"transport": transport, "follow_redirects": False, "trust_env": False}
    if timeout is not None:
        options["timeout"] = timeout
    return httpx2.Client(**options)


def _pinned(checked: Checked, inner: httpx2.BaseTransport) -> httpx2.BaseTransport:
    import httpx2

    class Pinned(httpx2.BaseTransport):
        """Rewrites each request's destination to the checked address; refuses any other host."""

        def handle_request(self, request: httpx2.Request) -> httpx2.Response:
            url = request.url
            if url.host.lower() != checked.host or url.scheme != checked.scheme:
                raise httpx2.ConnectError("a request left the checked endpoint", request=request)
            request.url = url.copy_with(host=checked.address.split("%", 1)[0])
            request.headers["host"] = url.netloc.decode("ascii")
            request.extensions = {**request.extensions, "sni_hostname": checked.host}
            return inner.handle_request(request)

        def close(self) -> None:
            inner.close()

    return Pinned()
