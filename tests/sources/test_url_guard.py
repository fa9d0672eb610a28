"""The forgery guard of sources.fetching, against a real local HTTP server."""

from __future__ import annotations

import contextlib
import ipaddress
import shutil
import socket
import ssl
import subprocess
import threading
import time
from datetime import UTC
from urllib.parse import parse_qs, urlsplit

import pytest

from sources.fetching import USER_AGENT, FetchError, FetchTooLarge, UnsafeURL, fetch
from tests.loopback import LoopbackServer, Reply

LOCAL = frozenset({ipaddress.ip_network("127.0.0.1/32")})
PAGE = b"<html><head><title>Budget</title></head><body>The figure is 4.2%.</body></html>"
UNSAFE_URLS = [
    "http://10.0.0.1/",
    "http://169.254.169.254/latest/meta-data/",
    "http://[::1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:7f00:1]/",
    "http://100.64.0.1/",
    "http://0.0.0.0/",
    "http://224.0.0.1/",
    "http://[fe80::1]/",
    "http://[fd00:ec2::254]/latest/meta-data/",
    "http://192.168.1.1/",
    "http://172.16.0.1/",
    "http://127.0.0.2/",
    "http://[::]/",
    "http://[64:ff9b::a00:1]/",  # NAT64 of 10.0.0.1
    "http://[2002:7f00:1::1]/",  # 6to4 of 127.0.0.1
    "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/",  # Teredo of 127.0.0.1
    "http://[ff02::1]/",
    "http://255.255.255.255/",
    "http://[::7f00:1]/",  # IPv4-compatible 127.0.0.1 (deprecated ::/96)
    "http://[::ffff:0:7f00:1]/",  # SIIT-translated 127.0.0.1
]


def redirect_to_query_url(request):
    location = parse_qs(urlsplit(request.path).query)["url"][0]
    request.send(Reply(302, b"", [("Location", location)]))


def unannounced(request):
    request.send_response(200)
    request.send_header("Connection", "close")
    request.end_headers()
    request.wfile.write(b"x" * 10_000)


def short(request):
    request.send_response(200)
    request.send_header("Content-Length", "100")
    request.end_headers()
    request.wfile.write(b"x" * 10)


def drip(request):
    request.send_response(200)
    request.send_header("Content-Length", "100")
    request.end_headers()
    for _ in range(100):
        request.wfile.write(b"x")
        request.wfile.flush()
        time.sleep(0.1)


@pytest.fixture
def server():
    with LoopbackServer() as server:
        server.page("/page", PAGE, content_type="text/html", headers=[("X-Test", "yes")])
        for left in (1, 2, 3):
            server.redirect(f"/chain/{left}", f"/chain/{left - 1}" if left > 1 else "/page")
        server.handle("/to", redirect_to_query_url)
        server.reply("/huge", Reply(200, b"x" * 10_000))
        server.handle("/unannounced", unannounced)
        server.handle("/short", short)

        def slow(request):
            server.stopping.wait(timeout=10)
            request.send(Reply(200, b"late"))

        server.handle("/slow", slow)
        server.handle("/drip", drip)
        yield server


@pytest.fixture
def base(server):
    return server.url("")


@pytest.fixture
def no_connections(monkeypatch):
    """Fails the test if anything opens a connection."""

    def refuse(address, *args, **kwargs):
        raise AssertionError(f"connected to {address}")

    monkeypatch.setattr(socket, "create_connection", refuse)


def resolving(table, calls=None):
    """A stub resolver answering from `table` (name → addresses or list of answers per call)."""

    def resolver(host, port, **kwargs):
        if calls is not None:
            calls.append(host)
        answer = table[host]
        if callable(answer):
            answer = answer()
        return [
            (socket.AF_INET6 if ":" in address else socket.AF_INET, 1, 6, "", (address, port))
            for address in answer
        ]

    return resolver


def not_called(host, port, **kwargs):
    raise AssertionError(f"resolved {host}")


def test_fetches_a_page_from_an_allowed_address(server, base):
    result = fetch(f"{base}/page", max_bytes=1000, timeout=5, allowed_addresses=LOCAL)
    assert result.status == 200
    assert result.final_url == f"{base}/page"
    assert result.body == PAGE
    assert ("X-Test", "yes") in result.headers
    assert result.redirects == []
    assert result.fetched_at.tzinfo == UTC
    [(path, headers)] = server.seen
    assert path == "/page"
    assert headers["User-Agent"] == USER_AGENT
    assert headers["Accept-Encoding"] == "identity"
    assert headers["Host"] == f"127.0.0.1:{server.port}"


def test_follows_a_chain_of_redirects_and_lists_them(server, base):
    result = fetch(f"{base}/chain/3", max_bytes=1000, timeout=5, allowed_addresses=LOCAL)
    assert result.status == 200
    assert result.body == PAGE
    assert result.final_url == f"{base}/page"
    assert result.redirects == [f"{base}/chain/2", f"{base}/chain/1", f"{base}/page"]


def test_refuses_the_local_server_unless_its_address_is_allowed(server, base):
    with pytest.raises(UnsafeURL, match="loopback"):
        fetch(f"{base}/page", max_bytes=1000, timeout=5)
    assert server.seen == []


@pytest.mark.parametrize("url", UNSAFE_URLS)
def test_refuses_an_unsafe_address_before_connecting(url, no_connections):
    with pytest.raises(UnsafeURL):
        fetch(url, max_bytes=1000, timeout=5, resolver=not_called)


@pytest.mark.parametrize("url", ["http://2130706433/", "http://0x7f.1/", "http://127.1/"])
def test_refuses_loopback_spelt_as_a_number_the_resolver_understands(url, no_connections):
    with pytest.raises(UnsafeURL, match="loopback"):
        fetch(url, max_bytes=1000, timeout=5)


def test_refuses_a_name_that_resolves_to_a_private_address(no_connections):
    resolver = resolving({"internal.example": ["10.0.0.1"]})
    with pytest.raises(UnsafeURL, match=r"internal\.example is a private address \(10\.0\.0\.1\)"):
        fetch("http://internal.example/", max_bytes=1000, timeout=5, resolver=resolver)


def test_refuses_a_name_that_resolves_to_a_public_and_a_private_address(no_connections):
    resolver = resolving({"mixed.example": ["93.184.216.34", "2606:4700::1", "127.0.0.1"]})
    with pytest.raises(UnsafeURL, match="loopback"):
        fetch("https://mixed.example/", max_bytes=1000, timeout=5, resolver=resolver)


def test_refuses_a_name_that_resolves_to_the_metadata_address_even_when_allowed(no_connections):
    resolver = resolving({"metadata.google.internal": ["169.254.169.254"]})
    with pytest.raises(UnsafeURL, match="cloud metadata"):
        fetch(
            "http://metadata.google.internal/computeMetadata/v1/",
            max_bytes=1000,
            timeout=5,
            allowed_addresses=["169.254.0.0/16"],
            resolver=resolver,
        )


def test_refuses_a_port_other_than_80_and_443_on_a_public_address(no_connections):
    resolver = resolving({"public.example": ["93.184.216.34"]})
    with pytest.raises(UnsafeURL, match="not 22"):
        fetch("http://public.example:22/", max_bytes=1000, timeout=5, resolver=resolver)


def test_connects_to_the_vetted_address_not_to_a_second_resolution(server, monkeypatch):
    # The first answer is the (allowed) test server, every later one the unsafe address:
    # a second resolution anywhere, ours or http.client's, would be seen and fail the fetch.
    answers = iter([["127.0.0.1"]])
    calls = []
    resolver = resolving({"rebind.example": lambda: next(answers, ["10.0.0.1"])}, calls)
    real_getaddrinfo = socket.getaddrinfo

    def getaddrinfo(host, port, *args, **kwargs):
        if host == "rebind.example":
            return resolver(host, port)
        return real_getaddrinfo(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    port = server.port
    result = fetch(
        f"http://rebind.example:{port}/page",
        max_bytes=1000,
        timeout=5,
        allowed_addresses=LOCAL,
        resolver=resolver,
    )
    assert result.body == PAGE
    assert calls == ["rebind.example"]
    [(_path, headers)] = server.seen
    assert headers["Host"] == f"rebind.example:{port}"


def test_resolves_the_name_again_at_every_redirect(server):
    calls = []
    resolver = resolving({"site.example": ["127.0.0.1"]}, calls)
    port = server.port
    result = fetch(
        f"http://site.example:{port}/chain/2",
        max_bytes=1000,
        timeout=5,
        allowed_addresses=LOCAL,
        resolver=resolver,
    )
    assert result.final_url == f"http://site.example:{port}/page"
    assert calls == ["site.example"] * 3


@pytest.mark.parametrize(
    "target",
    [
        # An IPv4-mapped address is its IPv4 address, and 127.0.0.1 is allowed here.
        *(url for url in UNSAFE_URLS if "::ffff:" not in url),
        "http://[::ffff:10.0.0.1]/",
        "http://internal.example/",
        "http://public.example:22/",
    ],
)
def test_refuses_a_redirect_to_an_unsafe_address(server, base, target):
    resolver = resolving({"internal.example": ["10.0.0.1"], "public.example": ["93.184.216.34"]})
    with pytest.raises(UnsafeURL):
        fetch(
            f"{base}/to?url={target}",
            max_bytes=1000,
            timeout=5,
            allowed_addresses=LOCAL,
            resolver=resolver,
        )
    assert len(server.seen) == 1


def test_refuses_more_redirects_than_the_cap(server, base):
    with pytest.raises(FetchError, match="More than 2 redirects"):
        fetch(
            f"{base}/chain/3", max_bytes=1000, timeout=5, max_redirects=2, allowed_addresses=LOCAL
        )
    assert len(server.seen) == 3
    result = fetch(
        f"{base}/chain/3", max_bytes=1000, timeout=5, max_redirects=3, allowed_addresses=LOCAL
    )
    assert result.body == PAGE


@pytest.mark.parametrize(
    "url",
    [
        "ftp://example.com/file",
        "file:///etc/passwd",
        "javascript:alert(1)",
        "data:text/html,<p>hi</p>",
        "gopher://127.0.0.1:6379/_INFO",
        "//example.com/",
        "example.com",
    ],
)
def test_refuses_a_scheme_other_than_http_and_https(url, no_connections):
    with pytest.raises(UnsafeURL, match="Only http and https"):
        fetch(url, max_bytes=1000, timeout=5, resolver=not_called)


@pytest.mark.parametrize(
    "url",
    [
        "http://user:pass@example.com/",
        "http://user@example.com/",
        "http://:pass@example.com/",
        "http://example.com\\@127.0.0.1/",
    ],
)
def test_refuses_credentials_in_the_url(url, no_connections):
    with pytest.raises(UnsafeURL, match="user name or password"):
        fetch(url, max_bytes=1000, timeout=5, resolver=not_called)


@pytest.mark.parametrize(
    "url", ["http:///page", "https://", "http://:80/", "http://exa\nmple.com/", "http://a.b:99999/"]
)
def test_refuses_a_url_without_a_valid_host(url, no_connections):
    with pytest.raises(UnsafeURL):
        fetch(url, max_bytes=1000, timeout=5, resolver=not_called)


def test_refuses_a_body_over_the_cap_announced_by_content_length(server, base):
    with pytest.raises(FetchTooLarge, match="larger than 9999 bytes"):
        fetch(f"{base}/huge", max_bytes=9_999, timeout=5, allowed_addresses=LOCAL)


def test_refuses_a_body_over_the_cap_without_content_length(server, base):
    with pytest.raises(FetchTooLarge, match="larger than 9999 bytes"):
        fetch(f"{base}/unannounced", max_bytes=9_999, timeout=5, allowed_addresses=LOCAL)


@pytest.mark.parametrize("path", ["/huge", "/unannounced"])
def test_accepts_a_body_exactly_at_the_cap(server, base, path):
    result = fetch(f"{base}{path}", max_bytes=10_000, timeout=5, allowed_addresses=LOCAL)
    assert result.body == b"x" * 10_000


def test_refuses_a_body_shorter_than_its_content_length(server, base):
    with pytest.raises(FetchError, match="before sending the whole page"):
        fetch(f"{base}/short", max_bytes=1000, timeout=5, allowed_addresses=LOCAL)


def test_gives_up_on_a_slow_server_at_the_timeout(server, base):
    started = time.monotonic()
    with pytest.raises(FetchError, match=r"longer than 0\.5 seconds"):
        fetch(f"{base}/slow", max_bytes=1000, timeout=0.5, allowed_addresses=LOCAL)
    # Long before the server answers (10 s), with room for a loaded machine.
    assert time.monotonic() - started < 4


def test_gives_up_on_a_server_dripping_bytes_at_the_overall_deadline(server, base):
    # Each byte arrives well within any per-read timeout; only the overall deadline stops it.
    started = time.monotonic()
    with pytest.raises(FetchError, match=r"longer than 0\.8 seconds"):
        fetch(f"{base}/drip", max_bytes=1000, timeout=0.8, allowed_addresses=LOCAL)
    assert time.monotonic() - started < 4


@pytest.fixture
def tls_server(tmp_path):
    """A TLS server with a self-signed certificate that records the SNI name it is sent."""
    if not shutil.which("openssl"):
        pytest.skip("openssl is needed to make a certificate")
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"),
            *("-subj", "/CN=secure.example", "-keyout", str(key), "-out", str(cert)),
        ],
        check=True,
        capture_output=True,
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    names = []
    context.sni_callback = lambda sock, name, ctx: names.append(name)
    listener = socket.create_server(("127.0.0.1", 0))

    def serve():
        connection, _ = listener.accept()
        with connection, contextlib.suppress(OSError):
            context.wrap_socket(connection, server_side=True)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield listener.getsockname()[1], names
    listener.close()
    thread.join(timeout=5)


def test_https_sends_the_host_name_for_sni_and_verifies_the_certificate(tls_server):
    port, names = tls_server
    resolver = resolving({"secure.example": ["127.0.0.1"]})
    with pytest.raises(FetchError, match="CERTIFICATE_VERIFY_FAILED"):
        fetch(
            f"https://secure.example:{port}/",
            max_bytes=1000,
            timeout=5,
            allowed_addresses=LOCAL,
            resolver=resolver,
        )
    assert names == ["secure.example"]


def test_the_error_message_is_a_template_the_caller_can_translate(no_connections):
    with pytest.raises(UnsafeURL) as refused:
        fetch("http://10.0.0.1/", max_bytes=1000, timeout=5)
    error = refused.value
    assert error.template == "%(host)s is a %(kind)s address (%(address)s): it is not fetched."
    assert error.params == {"host": "10.0.0.1", "kind": "private", "address": "10.0.0.1"}
    assert str(error) == "10.0.0.1 is a private address (10.0.0.1): it is not fetched."
    assert isinstance(error, ValueError)
