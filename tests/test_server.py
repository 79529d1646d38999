"""The server the browser tests load the site from (tests/conftest.py)."""

from __future__ import annotations

import socket
from contextlib import ExitStack

from .conftest import _QuietHandler, _Server

#: Connections opened at once: far more than socketserver's default queue of 5.
AT_ONCE = 64


def test_connections_wait_in_the_queue_until_accepted() -> None:
    """A browser's burst of connections is queued, not dropped.

    The server is never started here, so nothing is accepted: each connection
    that completes its handshake was queued by the kernel. With socketserver's
    default queue of 5, the seventh handshake is dropped (TcpExtListenOverflows)
    and its connect waits for a retry a second or more later: a page that needs
    a few such retries timed out a navigation test under load.
    """
    server = _Server(("127.0.0.1", 0), _QuietHandler)
    with server, ExitStack() as clients:
        for n in range(AT_ONCE):
            client = clients.enter_context(socket.socket())
            client.settimeout(2)
            try:
                client.connect(server.server_address)
            except TimeoutError:
                raise AssertionError(
                    f"connection {n + 1} of {AT_ONCE} was not queued"
                ) from None
