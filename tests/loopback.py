"""
A real HTTP server on 127.0.0.1 for the tests that fetch web pages.

The test settings let the fetch guard reach 127.0.0.1 only (``URL_FETCH_ALLOWED_ADDRESSES``),
so a test names the server by that literal address (``server.url(path)``): "localhost" may
resolve to ::1 as well, which stays refused. What the server answers is set path by path
and may be changed between requests, as a web page is edited between two visits::

    with LoopbackServer() as server:
        server.page("/article", b"<html>...</html>")
        server.redirect("/old", "/article")
        server.handle("/slow", lambda request: ...)  # writes its own answer
        ...
        server.page("/article", b"<html>...edited...</html>")

Every request is kept in ``server.seen`` as ``(path, headers)``, the query string included.
Each answer closes its connection, as the fetcher asks.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HOST = "127.0.0.1"


@dataclass(frozen=True)
class Reply:
    """An answer sent as it is: status, headers in order (a Content-Length is added), body."""

    status: int = 200
    body: bytes = b""
    headers: list[tuple[str, str]] = field(default_factory=list)


type Handler = Callable[[BaseHTTPRequestHandler], None]


class _RequestHandler(BaseHTTPRequestHandler):
    # HTTP/1.1, so that a chunked answer can be sent; every answer closes its connection.
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format, *args):
        pass

    def do_GET(self):
        self.close_connection = True
        self.server.seen.append((self.path, dict(self.headers)))
        answer = self.server.owner.answer_for(self.path.partition("?")[0])
        try:
            if callable(answer):
                answer(self)
            else:
                self.send(answer)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the fetcher gave up first, as it is meant to

    def send(self, reply: Reply) -> None:
        """Send ``reply``, with a Content-Length unless its headers frame the body otherwise."""
        self.send_response(reply.status)
        names = {name.lower() for name, _value in reply.headers}
        if not names & {"content-length", "transfer-encoding"}:
            self.send_header("Content-Length", str(len(reply.body)))
        for name, value in reply.headers:
            self.send_header(name, value)
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(reply.body)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: LoopbackServer
    seen: list


class LoopbackServer:
    """An HTTP server on 127.0.0.1 (a free port) answering from routes set by the test."""

    def __init__(self) -> None:
        self._routes: dict[str, Reply | Handler] = {}
        self._lock = threading.Lock()
        #: Set when the server stops: a handler that waits for ever waits on it instead.
        self.stopping = threading.Event()
        self._httpd = _Server((HOST, 0), _RequestHandler)
        self._httpd.owner = self
        self._httpd.seen = []
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True)

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def seen(self) -> list[tuple[str, dict]]:
        """Every request so far, in order: ``(path with query, headers)``."""
        return self._httpd.seen

    def url(self, path: str = "/") -> str:
        return f"http://{HOST}:{self.port}{path}"

    def start(self) -> LoopbackServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> LoopbackServer:
        return self.start()

    def __exit__(self, *exc_info) -> None:
        self.stop()

    # What the server answers.

    def reply(self, path: str, reply: Reply) -> None:
        with self._lock:
            self._routes[path] = reply

    def page(
        self,
        path: str,
        body: bytes,
        *,
        status: int = 200,
        content_type: str = "text/html; charset=utf-8",
        headers: tuple[tuple[str, str], ...] = (),
    ) -> None:
        """Answer ``path`` with ``body`` (from the next request on)."""
        self.reply(path, Reply(status, body, [("Content-Type", content_type), *headers]))

    def redirect(self, path: str, location: str, *, status: int = 302) -> None:
        self.reply(path, Reply(status, b"", [("Location", location)]))

    def handle(self, path: str, handler: Handler) -> None:
        """Answer ``path`` by calling ``handler`` with the request handler, which answers."""
        with self._lock:
            self._routes[path] = handler

    def answer_for(self, path: str) -> Reply | Handler:
        with self._lock:
            return self._routes.get(
                path, Reply(404, b"Not found", [("Content-Type", "text/plain")])
            )


def chunked(request: BaseHTTPRequestHandler, parts: list[bytes], *, content_type: str) -> None:
    """Answer ``request`` with ``parts`` as the chunks of a chunked body."""
    request.send_response(200)
    request.send_header("Content-Type", content_type)
    request.send_header("Transfer-Encoding", "chunked")
    request.send_header("Connection", "close")
    request.end_headers()
    for part in parts:
        request.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
    request.wfile.write(b"0\r\n\r\n")


def never_answering(server: LoopbackServer) -> Handler:
    """A handler that reads the request and then says nothing until the server stops."""

    def handler(request: BaseHTTPRequestHandler) -> None:
        server.stopping.wait(timeout=60)

    return handler
