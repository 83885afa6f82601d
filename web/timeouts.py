"""A deadline for each HTTP request of `palais serve` to arrive whole.

uvicorn (0.54) closes an idle keep-alive connection after `timeout_keep_alive` seconds, but
once a client has sent a single byte of a request it waits for the rest for ever: a client
that sends its headers (or its body) a byte a minute, or never finishes them, holds its
connection and, for a body, the request's task, as long as it likes. This HTTP protocol is
uvicorn's own h11 one with one thing more: from the moment a connection waits for a
request (it is opened, or the previous answer is sent) the request line, the headers and
the body must all have arrived within `request_timeout_s`. Otherwise a partial request
is answered 408 (or, when the app is already reading its body, the connection is cut, so
the app's read ends) and the connection is closed.

Once a request has arrived whole, no deadline runs while the app answers it (a hint may
search for seconds), nor on a WebSocket (its pings are the websockets library's).
"""

from __future__ import annotations

import asyncio

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

REQUEST_TIMEOUT_S = 10.0
_OWED = (h11.IDLE, h11.SEND_BODY)      # the client's h11 states while a request is incomplete


def _timeout_answer(seconds: float) -> bytes:
    body = f"the request did not arrive whole within {seconds:g} s\n".encode()
    return (b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\n"
            b"connection: close\r\ncontent-length: " + str(len(body)).encode() + b"\r\n\r\n" + body)


class DeadlineH11Protocol(H11Protocol):
    """uvicorn's H11Protocol with a deadline for each request to arrive whole."""

    request_timeout_s = REQUEST_TIMEOUT_S

    def connection_made(self, transport: asyncio.Transport) -> None:
        self._deadline = None
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state not in _OWED:
            self._disarm()                   # the request is whole (or the peer is done)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and self.conn.their_state in _OWED:
            self._arm()                      # a fresh deadline for the next request

    def handle_websocket_upgrade(self, event) -> None:
        self._disarm()
        super().handle_websocket_upgrade(event)

    def connection_lost(self, exc) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.request_timeout_s, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if self.transport.is_closing() or self.conn.their_state not in _OWED:
            return
        reading = self.cycle is not None and not self.cycle.response_complete
        if not reading and self.conn.their_state is h11.IDLE and self.conn.trailing_data[0]:
            self.transport.write(_timeout_answer(self.request_timeout_s))
        self.logger.info("closing a connection whose request did not arrive within %g s",
                         self.request_timeout_s)
        self.transport.close()


def deadline_protocol(request_timeout_s: float) -> type:
    """The protocol class for uvicorn's `http=` with this deadline."""
    if request_timeout_s == DeadlineH11Protocol.request_timeout_s:
        return DeadlineH11Protocol
    return type("DeadlineH11Protocol", (DeadlineH11Protocol,), {"request_timeout_s": request_timeout_s})
