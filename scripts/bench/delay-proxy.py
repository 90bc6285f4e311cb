"""A TCP proxy on loopback that holds every chunk for DELAY seconds in each direction, keeping order
and pipelining: a database "across a network" with a round trip of twice DELAY, for
scripts/bench-remote-db.sh (Linux's netem is not available on every machine).
Usage: python3 delay-proxy.py LISTEN_PORT TARGET_PORT DELAY_SECONDS"""

import asyncio
import sys
import time

listen_port, target_port, delay = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])


async def pump(reader, writer):
    queue = asyncio.Queue()

    async def read():
        while True:
            data = await reader.read(65536)
            queue.put_nowait((time.monotonic() + delay, data))
            if not data:
                return

    async def write():
        while True:
            due, data = await queue.get()
            wait = due - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            if not data:
                writer.close()
                return
            writer.write(data)
            await writer.drain()

    await asyncio.gather(read(), write(), return_exceptions=True)


async def handle(client_reader, client_writer):
    server_reader, server_writer = await asyncio.open_connection("127.0.0.1", target_port)
    await asyncio.gather(
        pump(client_reader, server_writer), pump(server_reader, client_writer), return_exceptions=True
    )


async def main():
    server = await asyncio.start_server(handle, "127.0.0.1", listen_port)
    async with server:
        await server.serve_forever()


asyncio.run(main())
