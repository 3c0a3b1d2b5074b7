"""One POST to an HTTP(S) endpoint with a deadline for the whole exchange and a cap on the reply.

A socket timeout bounds each read, not the request: a server that sends one byte a second never
trips a 2 s timeout. Here the deadline covers connecting, sending, the status line, the headers and
the body. The connection's socket is handed to a timer that shuts it down when the deadline passes,
which ends any read blocked on it; the body is read in pieces and the elapsed time checked between
them. The reply is also capped in bytes (checked against ``Content-Length`` before reading and
while reading), so a runaway reply costs neither unbounded memory nor time.

:func:`check_url` refuses, when a detector is configured, the URLs http.client would fail on at
every request. Redirects are not followed: urllib would resend the Authorization header to
whatever address the server names (and turn the POST into a GET). Every failure becomes
:class:`RequestFailed`, whose reason is a status code or an exception's type name: never bytes
from the server, never the URL.
"""

from __future__ import annotations

import contextlib
import http.client
import ipaddress
import logging
import re
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from ..errors import ConfigError

_PIECE = 65536


def check_url(name: str, url: object) -> str:
    """Return ``url`` if it is an http(s) URL with a host and a valid port, else raise ConfigError.

    The message names ``name`` and never quotes the URL: an API key pasted into it (as the port,
    the password or a stray word) must not reach a terminal or a log.
    """
    if not isinstance(url, str) or not re.match(r"https?://[^\s/]+", url):
        raise ConfigError(f"{name} must be an http:// or https:// URL")
    if not url.isascii() or not url.isprintable() or " " in url:
        raise ConfigError(f"{name} must be ASCII without spaces or control characters "
                          "(percent-encode the others)")
    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port
    except ValueError:  # a bracket left open, a port that is no number or out of range
        parts, port = None, 0
    if parts is not None and (parts.username is not None or "@" in parts.netloc):
        raise ConfigError(f"{name} must not hold a user name or password (put the key in the environment "
                          "variable the detector reads)")
    if parts is None or port == 0 or not parts.hostname:
        raise ConfigError(f"{name} must name a host and, if it has a port, a number from 1 to 65535 "
                          "(the text given is not shown)")
    if parts.scheme == "http" and not _loopback(parts.hostname) and name not in _WARNED:
        _WARNED.add(name)  # once per process (security audit: plain http to any host, no word)
        logging.getLogger(__name__).warning(
            "%s is http:// to another machine: the original text and the API key cross the network "
            "unencrypted; use https:// there", name)
    return url


#: the option names whose plain-http URL was warned about in this process
_WARNED: set[str] = set()


def _loopback(host: str) -> bool:
    """Whether ``host`` is this machine (``localhost``, ``127.0.0.1``, ``::1``)."""
    if host.lower() == "localhost" or host.lower().endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class RequestFailed(Exception):
    """The exchange failed. ``reason`` is safe to show; ``retry`` says whether trying again may help."""

    def __init__(self, reason: str, *, retry: bool) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry = retry


class _Deadline:
    """The time left to one exchange, and a timer that shuts the socket down when it runs out."""

    def __init__(self, seconds: float) -> None:
        self.end = time.monotonic() + seconds
        self.expired = False
        self._sock: socket.socket | None = None
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def left(self) -> float:
        left = self.end - time.monotonic()
        if left <= 0:
            self.expired = True
            raise TimeoutError
        return left

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            self._sock = sock
            expired = self.expired
        if expired:
            self._shutdown(sock)

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            sock = self._sock
        if sock is not None:
            self._shutdown(sock)

    @staticmethod
    def _shutdown(sock: socket.socket) -> None:
        with contextlib.suppress(OSError):  # already closed by the exchange that just finished
            sock.shutdown(socket.SHUT_RDWR)

    def cancel(self) -> None:
        self._timer.cancel()

    def connection(self, base: type[http.client.HTTPConnection]) -> type[http.client.HTTPConnection]:
        """``base`` connecting with the time left as its socket timeout, then watched."""
        deadline = self

        class Watched(base):  # type: ignore[valid-type,misc]  # a class built per exchange
            def connect(self) -> None:
                self.timeout = deadline.left()  # connect and TLS handshake: per operation, time left
                super().connect()
                deadline.watch(self.sock)

        return Watched


def _handlers(deadline: _Deadline) -> tuple[urllib.request.BaseHandler, urllib.request.BaseHandler]:
    """urllib's HTTP and HTTPS handlers, opening their connections under ``deadline``."""

    class HTTP(urllib.request.HTTPHandler):
        def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
            return self.do_open(deadline.connection(http.client.HTTPConnection), req)

    class HTTPS(urllib.request.HTTPSHandler):
        def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
            return self.do_open(deadline.connection(http.client.HTTPSConnection), req)

    return HTTP(), HTTPS()


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # the 3xx then surfaces as an HTTPError


def _read(response: http.client.HTTPResponse, deadline: _Deadline, max_bytes: int) -> bytes:
    declared = response.headers.get("Content-Length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise RequestFailed(f"reply larger than {max_bytes} bytes", retry=False)
    pieces, size = [], 0
    while piece := response.read1(_PIECE):
        deadline.left()
        size += len(piece)
        if size > max_bytes:
            raise RequestFailed(f"reply larger than {max_bytes} bytes", retry=False)
        pieces.append(piece)
    if deadline.expired or (declared.isdigit() and size < int(declared)):
        # the deadline's shutdown, or the server closing early, both end the body without an error
        raise RequestFailed("timeout" if deadline.expired else "network error (IncompleteRead)", retry=True)
    return b"".join(pieces)


def post(url: str, body: bytes, headers: dict[str, str], *, timeout: float, max_bytes: int) -> bytes:
    """POST ``body`` and return the reply's bytes (status 2xx).

    Args:
        url: http:// or https:// address.
        body: request body.
        headers: request headers.
        timeout: seconds for the whole exchange.
        max_bytes: largest reply accepted.

    Raises:
        RequestFailed: any failure; ``retry`` for HTTP 429 and 5xx, timeouts and network errors.
    """
    deadline = _Deadline(timeout)
    opener = urllib.request.build_opener(*_handlers(deadline), _NoRedirect())
    try:
        request = urllib.request.Request(url, data=body, headers=headers, method="POST")
        with opener.open(request, timeout=deadline.left()) as response:
            return _read(response, deadline, max_bytes)
    except RequestFailed:
        raise
    except urllib.error.HTTPError as exc:
        exc.close()
        raise RequestFailed(f"HTTP {exc.code}", retry=exc.code == 429 or 500 <= exc.code < 600) from None
    except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
        # OSError covers TimeoutError and the ssl errors; HTTPException covers IncompleteRead,
        # BadStatusLine, LineTooLong and InvalidURL, whose messages quote server bytes or the URL
        cause = exc.reason if isinstance(exc, urllib.error.URLError) else exc
        timed_out = deadline.expired or isinstance(cause, TimeoutError)
        name = type(cause).__name__ if isinstance(cause, BaseException) else type(exc).__name__
        raise RequestFailed("timeout" if timed_out else f"network error ({name})", retry=True) from None
    finally:
        deadline.cancel()
