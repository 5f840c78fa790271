"""A fake of the API (it cannot be made to answer these ways on purpose): a real HTTP server on
127.0.0.1 that answers each request with the next scripted answer (or the last one, again), and
records what it was sent. For what the client does with answers the real service rarely gives:
a 2xx that is not JSON, a gateway's 429 or 500 without an error envelope, a 409 "still being
processed", a long-poll answered at once, a JWKS that cannot be fetched."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Answer:
    status: int = 200
    body: Any = None  # a dict/list (sent as JSON) or bytes (sent as they are)
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds before answering


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    at: float


def envelope(status: int, code: str, param: str | None = None) -> Answer:
    return Answer(status, {"error": {"code": code, "message": f"{code} (fake)", "param": param, "request_id": "req_fake"}})


class FakeApi:
    """``answer(method, path)`` picks the answer; by default the scripted list, in order."""

    def __init__(self, answers: list[Answer] | Callable[[str, str], Answer]) -> None:
        self.received: list[Received] = []
        self._answers = answers
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def paths(self, method: str | None = None) -> list[str]:
        return [r.path for r in self.received if method is None or r.method == method]

    def _next(self, method: str, path: str) -> Answer:
        with self._lock:
            self.received.append(Received(method, path, {}, time.monotonic()))
            if callable(self._answers):
                return self._answers(method, path)
            return self._answers.pop(0) if len(self._answers) > 1 else self._answers[0]

    def __enter__(self) -> FakeApi:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                answer = fake._next(self.command, self.path)
                fake.received[-1].headers.update(dict(self.headers.items()))
                if answer.delay:
                    time.sleep(answer.delay)
                raw = answer.body if isinstance(answer.body, bytes) else json.dumps(answer.body).encode()
                try:
                    self.send_response(answer.status)
                    for k, v in answer.headers.items():
                        self.send_header(k, v)
                    if not isinstance(answer.body, bytes):
                        self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(raw)))
                    self.end_headers()
                    self.wfile.write(raw)
                except OSError:
                    pass  # the client gave up (a timeout test)

            do_GET = do_POST = _answer  # noqa: N815

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()
