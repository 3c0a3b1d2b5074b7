"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1 (port 0), run in a thread.

Each request is answered by the next :class:`Reply` of the script (the last one repeats), or by a
function of the request body. The server records every request body it received, so tests can
check what was sent (e.g. the Authorization header, the verifier's prompt). A reply may also be
raw bytes instead of an HTTP response (a broken server), and may be sent one byte at a time.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    """One scripted answer: chat ``content`` (wrapped in a completions object) or a raw ``body``.

    ``headers`` are added to the response; ``raw`` replaces the whole response (status line and
    headers included); ``drip`` sends the body (or ``raw``) one byte every ``drip`` seconds.
    """

    content: str | None = None
    status: int = 200
    delay: float = 0.0
    body: bytes | None = None
    headers: tuple[tuple[str, str], ...] = ()
    raw: bytes | None = None
    drip: float = 0.0


def completion(content: str) -> bytes:
    return json.dumps({"id": "stub", "object": "chat.completion",
                       "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                    "finish_reason": "stop"}]}).encode()


class StubLLM:
    """Context manager serving ``script`` (a list of replies, or ``f(request_json) -> Reply``)."""

    def __init__(self, script: list[Reply] | Callable[[dict[str, Any]], Reply]) -> None:
        self.script = script
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                length = int(self.headers.get("Content-Length", 0))
                request = json.loads(self.rfile.read(length) or b"{}")
                reply = stub._next(request, dict(self.headers))
                if reply.delay:
                    time.sleep(reply.delay)
                payload = reply.body if reply.body is not None else completion(reply.content or "")
                try:
                    if reply.raw is None:
                        self.send_response(reply.status)
                        self.send_header("Content-Type", "application/json")
                        self.send_header("Content-Length", str(len(payload)))
                        for name, value in reply.headers:
                            self.send_header(name, value)
                        self.end_headers()
                    else:
                        payload = reply.raw
                    if reply.drip:
                        for i in range(len(payload)):
                            self.wfile.write(payload[i:i + 1])
                            time.sleep(reply.drip)
                    else:
                        self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client timed out and went away

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02},
                                        daemon=True)

    def _next(self, request: dict[str, Any], headers: dict[str, str]) -> Reply:
        with self._lock:
            self.requests.append(request)
            self.headers.append(headers)
            if callable(self.script):
                return self.script(request)
            index = min(len(self.requests) - 1, len(self.script) - 1)
            return self.script[index]

    def __enter__(self) -> StubLLM:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
