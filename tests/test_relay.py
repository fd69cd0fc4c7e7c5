"""bench/relay.py, the delay the multi-machine rehearsal adds where the kernel has no netem:
every byte gets through, in order, both ways, and a round trip takes at least twice the
delay."""

from __future__ import annotations

import asyncio
import importlib.util
import os
from pathlib import Path
from types import ModuleType

RELAY = Path(__file__).resolve().parents[1] / "bench" / "relay.py"


def load_relay() -> ModuleType:
    spec = importlib.util.spec_from_file_location("relay", RELAY)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_relay_delays_each_way_and_keeps_every_byte_in_order() -> None:
    relay = load_relay()
    payload = os.urandom(300_000)  # several chunks each way

    async def run() -> tuple[bytes, float, float]:
        async def echo(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            while data := await r.read(10_000):
                w.write(data)
                await w.drain()
            w.close()

        backend = await asyncio.start_server(echo, "127.0.0.1", 0)
        server = await relay.serve("127.0.0.1", 0, "127.0.0.1", backend.sockets[0].getsockname()[1], delay=0.05)
        r, w = await asyncio.open_connection("127.0.0.1", server.sockets[0].getsockname()[1])
        loop = asyncio.get_running_loop()
        started = loop.time()
        w.write(b"x")
        await w.drain()
        assert await r.readexactly(1) == b"x"
        round_trip = loop.time() - started
        w.write(payload)
        w.write_eof()
        back = await r.read(-1)
        w.close()
        server.close()
        backend.close()
        return back, round_trip, loop.time() - started

    back, round_trip, whole = asyncio.run(run())
    assert back == payload
    assert round_trip >= 0.1  # 50 ms there and 50 ms back
    assert whole >= 0.2
