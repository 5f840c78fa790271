"""A small real HTTP proxy on 127.0.0.1 that forwards to the service and, for the first request of
a given method and path, forwards it, lets the service decide, and then drops the client's
connection without an answer: the answer is lost on the way back, as on a real network."""

from __future__ import annotations

import socket
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding"}


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    status: int | None  # what the service answered
    response_headers: dict[str, str]
    body: bytes
    dropped: bool


@dataclass
class DroppingProxy:
    upstream: str  # http://127.0.0.1:port
    drop_first: tuple[str, str]  # (method, path)
    seen: list[Seen] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> DroppingProxy:
        proxy = self
        client = httpx.Client(base_url=self.upstream, timeout=60)
        lock = threading.Lock()

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _forward(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP and k.lower() != "host"}
                res = client.request(self.command, self.path, content=body, headers=headers)
                path = self.path.split("?")[0]
                with lock:
                    drop = (self.command, path) == proxy.drop_first and not any((s.method, s.path) == proxy.drop_first for s in proxy.seen)
                    proxy.seen.append(Seen(self.command, path, dict(self.headers.items()), res.status_code, dict(res.headers.items()), res.content, drop))
                if drop:
                    # The service has decided; the answer never reaches the client.
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                self.send_response(res.status_code)
                for k, v in res.headers.items():
                    if k.lower() not in _HOP:
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(res.content)))
                self.end_headers()
                self.wfile.write(res.content)

            do_GET = do_POST = do_PATCH = do_DELETE = _forward  # noqa: N815

        self._client = client
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()
        self._client.close()
