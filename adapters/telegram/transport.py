"""python-telegram-bot's HTTP transport on aiohttp: the requests to the Bot API and getUpdates.

PTB's default, ``HTTPXRequest`` (httpx on httpcore), collapses under hundreds of concurrent
requests: 500 presses at once were acknowledged at 54/s with a p95 of 10 s, and the bare
acknowledge-only app was as slow. The same app on this transport acknowledged 1,100-1,300/s
(p95 about 400 ms). httpcore's pool re-assigns every queued request to every connection on
each enqueue and release (``_assign_requests_to_connections``, O(connections x requests),
encode/httpcore#1035), so its cost per request grows with the concurrency; aiohttp's
connector hands out a pooled connection in constant time and parses responses in C.
``docs/benchmarks.md`` has the measurements.

It implements PTB's documented extension point, :class:`telegram.request.BaseRequest`, the way
``HTTPXRequest`` does: the same defaults (256 connections, 5 s read/write/connect timeouts,
1 s pool timeout, 20 s write timeout for uploads), the same request bodies (form fields;
multipart when files are uploaded), timeouts raised as :exc:`~telegram.error.TimedOut` (a pool
timeout with PTB's own message) and other HTTP client failures as
:exc:`~telegram.error.NetworkError`. HTTP status codes (429 and its ``retry_after`` included)
are turned into PTB's exceptions by ``BaseRequest`` itself, as for any transport.
"""

from __future__ import annotations

import asyncio
import json
import urllib.request
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import aiohttp
from telegram._utils.defaultvalue import DefaultValue
from telegram._utils.types import ODVInput
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData

# httpx's keep-alive expiry, which PTB keeps: idle connections are closed after this long.
KEEPALIVE_S = 5.0
POOL_TIMEOUT_MESSAGE = (
    "Pool timeout: All connections in the connection pool are occupied. Request was *not* "
    "sent to Telegram. Consider adjusting the connection pool size or the pool timeout."
)


JSON_BODY = {"Content-Type": "application/json"}
# What may answer a request in place of the network (see AiohttpRequest).
Divert = Callable[[str, RequestData | None], bytes | None]


def _body(request_data: RequestData | None) -> Any:
    """What aiohttp sends: multipart with the files, else a JSON object (one of the Bot API's
    documented encodings; percent-encoding a form cost about a tenth of the bot's CPU)."""
    if request_data is None:
        return None
    if not request_data.contains_files:
        return json.dumps(
            request_data.parameters, ensure_ascii=False, separators=(",", ":")
        ).encode()
    form = aiohttp.FormData()
    for name, value in request_data.json_parameters.items():
        form.add_field(name, value)
    for name, (filename, content, mimetype) in request_data.multipart_data.items():
        form.add_field(name, content, filename=filename, content_type=mimetype)
    return form


def _total(*parts: float | None) -> float | None:
    """A bound on the whole request when every phase has one; None when one is unbounded."""
    if any(part is None for part in parts):
        return None
    return sum(part for part in parts if part is not None)


class AiohttpRequest(BaseRequest):
    """A :class:`~telegram.request.BaseRequest` on an :class:`aiohttp.ClientSession`.

    ``connection_pool_size`` requests run at once, the others wait up to ``pool_timeout`` for
    one to finish. aiohttp has no separate write timeout: ``write_timeout`` (or
    ``media_write_timeout`` for uploads) bounds, with the read and connect timeouts, the whole
    request, so a stalled upload still ends in :exc:`~telegram.error.TimedOut`.
    """

    __slots__ = (
        "_connect_timeout",
        "_divert",
        "_keepalive",
        "_media_write_timeout",
        "_pool",
        "_pool_size",
        "_pool_timeout",
        "_proxies",
        "_read_timeout",
        "_session",
        "_write_timeout",
    )

    def __init__(
        self,
        connection_pool_size: int = 256,
        read_timeout: float | None = 5.0,
        write_timeout: float | None = 5.0,
        connect_timeout: float | None = 5.0,
        pool_timeout: float | None = 1.0,
        media_write_timeout: float | None = 20.0,
        keepalive_timeout: float = KEEPALIVE_S,
        divert: Divert | None = None,
    ) -> None:
        """``divert(url, request_data)`` may answer a request instead of the network: it
        returns the response body (status 200), or None to let the request go out."""
        if connection_pool_size < 1:
            raise ValueError("connection_pool_size must be at least 1")
        self._pool_size = connection_pool_size
        self._read_timeout = read_timeout
        self._write_timeout = write_timeout
        self._connect_timeout = connect_timeout
        self._pool_timeout = pool_timeout
        self._media_write_timeout = media_write_timeout
        self._keepalive = keepalive_timeout
        self._pool = asyncio.Semaphore(connection_pool_size)
        self._session: aiohttp.ClientSession | None = None
        self._divert = divert
        self._proxies: dict[tuple[str, str], str | None] = {}

    @property
    def read_timeout(self) -> float | None:
        """The default read timeout, in seconds (getUpdates adds its long-poll time to it)."""
        return self._read_timeout

    async def initialize(self) -> None:
        """Open the session (it needs the running event loop, so not in ``__init__``)."""
        if self._session is None or self._session.closed:
            connector = aiohttp.TCPConnector(
                limit=self._pool_size, limit_per_host=0, keepalive_timeout=self._keepalive
            )
            # Not trust_env: aiohttp would then look up netrc and the proxy variables in a
            # thread on every request; _proxy() reads them once per host instead.
            self._session = aiohttp.ClientSession(
                connector=connector,
                headers={"User-Agent": self.USER_AGENT},
                auto_decompress=True,
            )

    async def shutdown(self) -> None:
        """Close the session and its connections."""
        session, self._session = self._session, None
        if session is not None and not session.closed:
            await session.close()

    def _proxy(self, url: str) -> str | None:
        """The proxy for ``url`` from HTTP(S)_PROXY and NO_PROXY, as httpx honours them."""
        split = urlsplit(url)
        key = (split.scheme, split.hostname or "")
        if key not in self._proxies:
            proxy = urllib.request.getproxies().get(split.scheme)
            if proxy and split.hostname and urllib.request.proxy_bypass(split.hostname):
                proxy = None
            self._proxies[key] = proxy or None
        return self._proxies[key]

    def _timeout(
        self,
        read_timeout: ODVInput[float],
        write_timeout: ODVInput[float],
        connect_timeout: ODVInput[float],
        *,
        media: bool,
    ) -> aiohttp.ClientTimeout:
        """A request's timeouts: PTB's values where given, else this transport's defaults."""
        if isinstance(read_timeout, DefaultValue):
            read_timeout = self._read_timeout
        if isinstance(connect_timeout, DefaultValue):
            connect_timeout = self._connect_timeout
        if isinstance(write_timeout, DefaultValue):
            write_timeout = self._media_write_timeout if media else self._write_timeout
        return aiohttp.ClientTimeout(
            total=_total(connect_timeout, write_timeout, read_timeout),
            connect=connect_timeout,
            sock_connect=connect_timeout,
            sock_read=read_timeout,
        )

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        write_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        connect_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        pool_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        """See :meth:`telegram.request.BaseRequest.do_request`."""
        session = self._session
        if session is None or session.closed:
            raise RuntimeError("This AiohttpRequest is not initialized!")
        if self._divert is not None and (answered := self._divert(url, request_data)):
            return 200, answered
        # PTB's flag, set once per request: multipart_data builds the files' dict anew.
        media = request_data is not None and request_data.contains_files
        if isinstance(pool_timeout, DefaultValue):
            pool_timeout = self._pool_timeout
        timeout = self._timeout(read_timeout, write_timeout, connect_timeout, media=media)
        body = _body(request_data)
        try:
            async with asyncio.timeout(pool_timeout):
                await self._pool.acquire()
        except TimeoutError as err:
            raise TimedOut(message=POOL_TIMEOUT_MESSAGE) from err
        try:
            async with session.request(
                method,
                url,
                data=body,
                headers=JSON_BODY if isinstance(body, bytes) else None,
                timeout=timeout,
                allow_redirects=False,
                proxy=self._proxy(url),
            ) as response:
                return response.status, await response.read()
        except TimeoutError as err:  # aiohttp's timeouts are TimeoutErrors too
            raise TimedOut from err
        except aiohttp.ClientError as err:
            raise NetworkError(f"aiohttp.{err.__class__.__name__}: {err}") from err
        finally:
            self._pool.release()
