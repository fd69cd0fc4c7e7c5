"""A TCP relay that holds every byte back a fixed time in each direction: the added latency
of a link where the kernel has no ``netem`` (bench/netns.py puts one in front of PostgreSQL
and of each server process).

Each chunk read from one side is written to the other ``--delay-ms`` after it was read, in
the order read, so a request and its answer each take that much longer: a round trip
``2 x delay``, as netem's delay on both parts' interfaces gives.  Unlike netem it delays
data only, not the TCP handshake, and it adds its own cost (one more hop, on this machine's
CPU); bench/netns.py reports that cost apart.

    python bench/relay.py --listen 10.77.0.2:5433 --to 10.77.0.2:5432 --delay-ms 1

>>> import asyncio
>>> async def demo() -> tuple[bytes, bool]:
...     async def echo(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
...         w.write(await r.read(100)); await w.drain(); w.close()
...     backend = await asyncio.start_server(echo, "127.0.0.1", 0)
...     port = backend.sockets[0].getsockname()[1]
...     relay = await serve("127.0.0.1", 0, "127.0.0.1", port, delay=0.02)
...     r, w = await asyncio.open_connection("127.0.0.1", relay.sockets[0].getsockname()[1])
...     started = asyncio.get_running_loop().time()
...     w.write(b"ping"); await w.drain()
...     answer = await r.read(100)
...     took = asyncio.get_running_loop().time() - started
...     w.close(); relay.close(); backend.close()
...     return answer, took >= 0.04
>>> asyncio.run(demo())
(b'ping', True)
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import sys

CHUNK = 65_536


async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, delay: float) -> None:
    """Copy ``reader`` to ``writer``, each chunk ``delay`` seconds after it was read."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

    async def send() -> None:
        while True:
            due, data = await queue.get()
            wait = due - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)  # the link's delay itself
            if not data:
                break
            writer.write(data)
            await writer.drain()
        with contextlib.suppress(OSError):
            writer.write_eof()

    sender = loop.create_task(send())
    try:
        while True:
            data = await reader.read(CHUNK)
            queue.put_nowait((loop.time() + delay, data))
            if not data:
                break
        await sender
    except (ConnectionError, OSError):
        sender.cancel()


async def serve(host: str, port: int, to_host: str, to_port: int, delay: float) -> asyncio.Server:
    """Listen on ``host:port``; relay each connection to ``to_host:to_port`` with ``delay``
    seconds each way."""

    async def relay(client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        try:
            up_r, up_w = await asyncio.open_connection(to_host, to_port)
        except OSError:
            client_w.close()
            return
        try:
            await asyncio.gather(_pump(client_r, up_w, delay), _pump(up_r, client_w, delay))
        finally:
            for w in (up_w, client_w):
                w.close()

    return await asyncio.start_server(relay, host, port, backlog=1024)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--listen", required=True, help="HOST:PORT to listen on")
    parser.add_argument("--to", required=True, help="HOST:PORT to relay to")
    parser.add_argument("--delay-ms", type=float, required=True, help="added delay each way")
    args = parser.parse_args(argv)
    # Stopped with SIGTERM by the rehearsal: nothing to hand over, so no tidy shutdown (whose
    # cancelled relays would fill the log).
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    host, _, port = args.listen.rpartition(":")
    to_host, _, to_port = args.to.rpartition(":")

    async def run() -> None:
        server = await serve(host, int(port), to_host, int(to_port), args.delay_ms / 1000)
        print("ready", flush=True)
        async with server:
            await server.serve_forever()

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run())
    return 0


if __name__ == "__main__":
    sys.exit(main())
