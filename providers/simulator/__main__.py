"""``python -m providers.simulator --port 9000 [--host 127.0.0.1] [--pace-ms 30]``: the simulator on its own.

Serves the same paths as Crosswire's mount, under ``/sim``: point an OpenAI client at
``http://HOST:PORT/sim/openai/v1`` and an Anthropic client at ``http://HOST:PORT/sim/anthropic``.
"""

from __future__ import annotations

import argparse
import logging
from collections.abc import Sequence

import uvicorn

from providers.simulator.app import create_server_app
from providers.simulator.streams import ConnectionCut


class _HideDeliberateCuts(logging.Filter):
    """``sim-cut`` drops connections on purpose; its exception is the mechanism, not a failure worth a traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        return not isinstance(error, ConnectionCut)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m providers.simulator", description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=9000, help="port to listen on (default 9000)")
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1)")
    parser.add_argument("--pace-ms", type=float, default=30.0, help="pause between streamed events (default 30)")
    parser.add_argument(
        "--slow-first-byte-s", type=float, default=5.0, help="delay before the first byte for sim-slow (default 5)"
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    logging.getLogger("uvicorn.error").addFilter(_HideDeliberateCuts())
    app = create_server_app(pace_ms=args.pace_ms, slow_first_byte_s=args.slow_first_byte_s)
    uvicorn.run(app, host=args.host, port=args.port, log_level="info")


if __name__ == "__main__":
    main()
