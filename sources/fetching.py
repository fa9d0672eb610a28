"""Fetching a web page once, with a guard against server-side request forgery.

No Django here: this module imports only the standard library, so it can be used and tested on
its own. Its messages are plain English templates (``FetchError.template``, with
``FetchError.params``) that the caller translates, e.g. ``_(error.template) % error.params``.

:func:`fetch` makes one GET and follows redirects by hand. Each hop (the first URL and every
redirect target alike) goes through the same guard:

* The URL must be ``http`` or ``https`` with a host, and carry no credentials
  (``user:pass@``) and no control characters. The fragment is never sent, so it is dropped.
* The host is resolved once (``resolver``, :func:`socket.getaddrinfo` by default; an IP
  literal is taken as is) and every address it resolves to is vetted; if any one is unsafe
  the URL is refused, so a name that resolves to both a public and a private address is
  refused. Unsafe: not globally routable (:attr:`ipaddress.IPv4Address.is_global`), plus,
  explicitly and whatever the Python version thinks, loopback, private, link-local
  (169.254.0.0/16, fe80::/10), multicast, reserved, unspecified, shared address space
  (100.64.0.0/10), documentation and benchmarking ranges, unique-local (fc00::/7), site-local
  (fec0::/10), 6to4 (2002::/16) and Teredo (2001::/32) (transition tunnels whose embedded IPv4
  address could be anything; a public page does not need them) and the cloud metadata
  addresses in :data:`METADATA_ADDRESSES`. An IPv4-mapped IPv6 address (``::ffff:127.0.0.1``)
  and the IPv4 address inside the NAT64 prefix 64:ff9b::/96 are vetted as that IPv4 address.
* Only ports 80 and 443 may be fetched, unless every address is in ``allowed_addresses``:
  a source is a public web page, and other ports of public hosts are where mail, database
  and admin services listen.
* No DNS rebinding between check and use: the connection is opened to the vetted address
  itself, never to the name, while the request carries the original ``Host`` header and,
  for https, the original host name is used for SNI and certificate verification (with the
  default SSL context: verified certificates only).

``allowed_addresses`` are networks accepted even though they are not public, so that tests
can fetch from a local test server (127.0.0.1/32). Production passes nothing; a setting
(``URL_FETCH_ALLOWED_ADDRESSES``, say) that only the test settings fill is the caller's
business. The cloud metadata addresses are refused even when allowed.

Caps: at most ``max_redirects`` redirects (301, 302, 303, 307, 308; a redirect without a
``Location`` is returned as the response); a body over ``max_bytes`` is refused, before reading
when ``Content-Length`` says so, otherwise as soon as one byte too many has arrived; and the
whole fetch, every hop included, must finish within ``timeout`` seconds: a watchdog shuts the
connection at the deadline, so a server dripping one byte at a time cannot stretch it. A body
shorter than its ``Content-Length`` is an error, not a page. The request asks for
``Accept-Encoding: identity`` so the byte cap counts the bytes of the page; a body the server
encodes anyway is returned as sent, with its headers.

Refusals raise :class:`UnsafeURL` (a :class:`ValueError`), a body over the cap
:class:`FetchTooLarge`, and everything else that stops a fetch (the deadline, too many
redirects, a name that does not resolve, a network, TLS or HTTP error) :class:`FetchError`,
the base class of both.
"""

from __future__ import annotations

import contextlib
import http.client
import ipaddress
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from urllib.parse import quote, urljoin, urlsplit, urlunsplit

type IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
type IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

USER_AGENT = "factcheck-capture/1"
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
DEFAULT_PORTS = {"http": 80, "https": 443}
READ_CHUNK = 64 * 1024

# Instance metadata services hand out credentials: refused even if a network around them
# is allowed. AWS, GCP, Azure and OpenStack (IPv4 and AWS's IPv6), Alibaba, Oracle.
METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(address)
    for address in ("169.254.169.254", "fd00:ec2::254", "100.100.100.200", "192.0.0.192")
)

# Refused whatever `is_global` says: its lists have changed between Python versions.
UNSAFE_NETWORKS = tuple(
    (ipaddress.ip_network(network), kind)
    for network, kind in (
        ("0.0.0.0/8", "unspecified"),
        ("10.0.0.0/8", "private"),
        ("100.64.0.0/10", "shared (carrier-grade NAT)"),
        ("127.0.0.0/8", "loopback"),
        ("169.254.0.0/16", "link-local"),
        ("172.16.0.0/12", "private"),
        ("192.0.0.0/24", "reserved"),
        ("192.0.2.0/24", "documentation"),
        ("192.88.99.0/24", "reserved"),
        ("192.168.0.0/16", "private"),
        ("198.18.0.0/15", "benchmarking"),
        ("198.51.100.0/24", "documentation"),
        ("203.0.113.0/24", "documentation"),
        ("224.0.0.0/4", "multicast"),
        ("240.0.0.0/4", "reserved"),
        ("::/128", "unspecified"),
        ("::1/128", "loopback"),
        # IPv4-compatible (deprecated) and SIIT-translated addresses: a tunnel or translator
        # may carry them to the IPv4 address inside, which could be any.
        ("::/96", "reserved"),
        ("::ffff:0:0:0/96", "reserved"),
        ("64:ff9b:1::/48", "private"),
        ("100::/64", "reserved"),
        ("2001::/32", "Teredo"),
        ("2001::/23", "reserved"),
        ("2001:db8::/32", "documentation"),
        ("2002::/16", "6to4"),
        ("fc00::/7", "private"),
        ("fe80::/10", "link-local"),
        ("fec0::/10", "site-local"),
        ("ff00::/8", "multicast"),
    )
)
NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


def gettext_noop(message: str) -> str:
    """``message`` as it is, marked for the catalogues (``make messages`` reads this name):
    this module never imports Django, so the site translates it (``sources.capture``)."""
    return message


class FetchError(Exception):
    """A fetch that did not produce a page. ``template % params`` is the English message."""

    def __init__(self, template: str, **params: object) -> None:
        self.template = template
        self.params = params
        super().__init__(template % params)


class UnsafeURL(FetchError, ValueError):
    """The URL, or a redirect's target, is not one the server may fetch."""


class FetchTooLarge(FetchError):
    """The body is larger than the cap."""


@dataclass(frozen=True)
class FetchResult:
    """The final response of a fetch, after ``redirects`` (the URLs redirected to, in order)."""

    final_url: str
    status: int
    headers: list[tuple[str, str]]
    body: bytes
    fetched_at: datetime
    redirects: list[str] = field(default_factory=list)


def fetch(
    url: str,
    *,
    max_bytes: int,
    timeout: float,
    max_redirects: int = 5,
    allowed_addresses: Iterable[IPNetwork | str] = (),
    resolver: Callable[..., list] = socket.getaddrinfo,
) -> FetchResult:
    """
    GET ``url`` and follow its redirects, each hop vetted by the guard the module describes.

    Raises :class:`UnsafeURL` for a URL or redirect target the guard refuses,
    :class:`FetchTooLarge` for a body over ``max_bytes``, :class:`FetchError` otherwise.
    """
    allowed = tuple(ipaddress.ip_network(network, strict=False) for network in allowed_addresses)
    deadline = time.monotonic() + timeout
    redirects: list[str] = []
    while True:
        target = _vet(url, allowed=allowed, resolver=resolver)
        status, headers, body = _get(
            target, max_bytes=max_bytes, deadline=deadline, timeout=timeout
        )
        location = dict((name.lower(), value) for name, value in headers).get("location")
        if status not in REDIRECT_STATUSES or not location:
            return FetchResult(
                final_url=target.url,
                status=status,
                headers=headers,
                body=body,
                fetched_at=datetime.now(UTC),
                redirects=redirects,
            )
        if len(redirects) >= max_redirects:
            raise FetchError(gettext_noop("More than %(count)d redirects."), count=max_redirects)
        url = urljoin(target.url, location.strip())
        redirects.append(url)


@dataclass(frozen=True)
class _Target:
    url: str  # without fragment or credentials
    scheme: str
    host: str  # lower case, IDNA-encoded
    port: int
    request_path: str
    addresses: tuple[IPAddress, ...]


def _vet(url: str, *, allowed: tuple[IPNetwork, ...], resolver: Callable[..., list]) -> _Target:
    if any(ord(character) < 0x20 or ord(character) == 0x7F for character in url):
        raise UnsafeURL(gettext_noop("The address contains control characters."))
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise UnsafeURL(gettext_noop("Only http and https addresses can be fetched."))
    if parts.username is not None or parts.password is not None:
        raise UnsafeURL(gettext_noop("Addresses with a user name or password are not fetched."))
    if not parts.hostname:
        raise UnsafeURL(gettext_noop("The address has no host."))
    try:
        port = parts.port or DEFAULT_PORTS[scheme]
    except ValueError:
        raise UnsafeURL(gettext_noop("The address has an invalid port.")) from None
    try:
        host = parts.hostname.encode("idna").decode("ascii")
    except UnicodeError:
        raise UnsafeURL(
            gettext_noop("%(host)s is not a valid host name."), host=parts.hostname
        ) from None
    addresses = _resolve(host, port, resolver)
    all_allowed = True
    for address in addresses:
        kind = _unsafe_kind(address)
        if address in METADATA_ADDRESSES or (kind and not _in(address, allowed)):
            # Not catalogued: sources.capture says it with the kind as a phrase of its own
            # ("a private network address"), which a translation can agree with.
            raise UnsafeURL(
                "%(host)s is a %(kind)s address (%(address)s): it is not fetched.",
                host=host,
                kind="cloud metadata" if address in METADATA_ADDRESSES else kind,
                address=str(address),
            )
        all_allowed = all_allowed and _in(address, allowed)
    if port not in DEFAULT_PORTS.values() and not all_allowed:
        raise UnsafeURL(
            gettext_noop("Only ports 80 and 443 can be fetched, not %(port)d."), port=port
        )
    netloc = f"[{host}]" if ":" in host else host
    if parts.port is not None:
        netloc = f"{netloc}:{port}"
    path = quote(parts.path or "/", safe="/%:@!$&'()*+,;=-._~")
    query = quote(parts.query, safe="/?%:@!$&'()*+,;=-._~")
    return _Target(
        url=urlunsplit((scheme, netloc, path, query, "")),
        scheme=scheme,
        host=host,
        port=port,
        request_path=f"{path}?{query}" if query else path,
        addresses=addresses,
    )


def _resolve(host: str, port: int, resolver: Callable[..., list]) -> tuple[IPAddress, ...]:
    try:
        return (_unmapped(ipaddress.ip_address(host)),)
    except ValueError:
        pass
    try:
        answers = resolver(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        raise FetchError(gettext_noop("%(host)s could not be resolved."), host=host) from None
    addresses = []
    for _family, _type, _proto, _canonname, sockaddr in answers:
        try:
            address = _unmapped(ipaddress.ip_address(sockaddr[0]))
        except ValueError:
            raise UnsafeURL(
                gettext_noop("%(host)s resolves to %(address)s, which is not an IP address."),
                host=host,
                address=str(sockaddr[0]),
            ) from None
        if address not in addresses:
            addresses.append(address)
    if not addresses:
        raise FetchError(gettext_noop("%(host)s could not be resolved."), host=host)
    return tuple(addresses)


def _unmapped(address: IPAddress) -> IPAddress:
    # ::ffff:a.b.c.d *is* a.b.c.d to the kernel: vet and connect to the IPv4 address.
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return address.ipv4_mapped
        if address.scope_id:
            return ipaddress.IPv6Address(str(address).split("%", 1)[0])
    return address


def _unsafe_kind(address: IPAddress) -> str | None:
    for network, kind in UNSAFE_NETWORKS:
        if address in network:
            return kind
    if address in NAT64:
        # The NAT64 gateway forwards to the embedded IPv4 address.
        return _unsafe_kind(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    if not address.is_global:
        return "non-public"
    return None


def _in(address: IPAddress, networks: tuple[IPNetwork, ...]) -> bool:
    return any(address in network for network in networks)


class _PinnedHTTPConnection(http.client.HTTPConnection):
    """An HTTP connection to a vetted address, whatever the name resolves to by now."""

    def __init__(self, host: str, port: int, *, addresses: tuple[IPAddress, ...], timeout: float):
        super().__init__(host, port, timeout=timeout)
        self.addresses = addresses
        self.raw_socket: socket.socket | None = None

    def connect(self) -> None:
        self.sock = self.raw_socket = _connect(self.addresses, self.port, self.timeout)


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """An HTTPS connection to a vetted address; SNI and certificate check use the host name."""

    def __init__(self, host: str, port: int, *, addresses: tuple[IPAddress, ...], timeout: float):
        self.ssl_context = ssl.create_default_context()
        super().__init__(host, port, timeout=timeout, context=self.ssl_context)
        self.addresses = addresses
        self.raw_socket: socket.socket | None = None

    def connect(self) -> None:
        # Kept before the handshake so the watchdog can shut a handshake that drags on.
        self.raw_socket = _connect(self.addresses, self.port, self.timeout)
        self.sock = self.ssl_context.wrap_socket(self.raw_socket, server_hostname=self.host)


def _connect(addresses: tuple[IPAddress, ...], port: int, timeout: float) -> socket.socket:
    error: OSError | None = None
    for address in addresses:
        try:
            return socket.create_connection((str(address), port), timeout=timeout)
        except OSError as exc:
            error = exc
    assert error is not None  # noqa: S101 - there is always at least one address
    raise error


def _get(
    target: _Target, *, max_bytes: int, deadline: float, timeout: float
) -> tuple[int, list[tuple[str, str]], bytes]:
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise _timed_out(timeout)
    connection_class = _PinnedHTTPSConnection if target.scheme == "https" else _PinnedHTTPConnection
    connection = connection_class(
        target.host, target.port, addresses=target.addresses, timeout=remaining
    )
    expired = threading.Event()

    def expire() -> None:
        expired.set()
        # The connection forgets its socket once the response has it, so the socket is kept
        # apart; and under TLS it is the plain socket, as SSLSocket.shutdown would drop the
        # TLS state under the reading thread's feet.
        if connection.raw_socket is not None:
            with contextlib.suppress(OSError):
                connection.raw_socket.shutdown(socket.SHUT_RDWR)

    watchdog = threading.Timer(remaining, expire)
    watchdog.daemon = True
    watchdog.start()
    try:
        connection.putrequest("GET", target.request_path, skip_accept_encoding=True)
        connection.putheader("User-Agent", USER_AGENT)
        connection.putheader("Accept", "*/*")
        connection.putheader("Accept-Encoding", "identity")
        connection.putheader("Connection", "close")
        connection.endheaders()
        response = connection.getresponse()
        headers = response.getheaders()
        declared = response.getheader("Content-Length")
        chunked = "chunked" in (response.getheader("Transfer-Encoding") or "").lower()
        length = int(declared) if declared and declared.isdigit() and not chunked else None
        if length is not None and length > max_bytes:
            raise _too_large(max_bytes)
        body = bytearray()
        while chunk := response.read1(READ_CHUNK):
            body += chunk
            if len(body) > max_bytes:
                raise _too_large(max_bytes)
        if expired.is_set():
            raise _timed_out(timeout)
        if length is not None and len(body) < length:
            raise FetchError(
                gettext_noop("The server closed the connection before sending the whole page.")
            )
        return response.status, headers, bytes(body)
    except (OSError, http.client.HTTPException, ValueError) as exc:
        if isinstance(exc, FetchError):
            raise
        if expired.is_set() or isinstance(exc, TimeoutError):
            raise _timed_out(timeout) from None
        raise FetchError(
            gettext_noop("The page could not be fetched: %(error)s"), error=str(exc)
        ) from None
    finally:
        watchdog.cancel()
        connection.close()


def _too_large(max_bytes: int) -> FetchTooLarge:
    # Not catalogued: sources.capture says the limit in megabytes, as for an upload.
    return FetchTooLarge("The page is larger than %(max_bytes)d bytes.", max_bytes=max_bytes)


def _timed_out(timeout: float) -> FetchError:
    return FetchError(
        gettext_noop("The fetch took longer than %(seconds)s seconds."), seconds=f"{timeout:g}"
    )
