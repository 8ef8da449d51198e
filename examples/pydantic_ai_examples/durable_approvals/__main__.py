"""`python -m pydantic_ai_examples.durable_approvals [--db URL] [--port PORT]`: serve the approval inbox."""

from __future__ import annotations

import argparse

import uvicorn

from .app import create_app


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and serve the app with uvicorn on 127.0.0.1."""
    parser = argparse.ArgumentParser(prog='python -m pydantic_ai_examples.durable_approvals', description=__doc__)
    parser.add_argument('--db', default='sqlite:///durable_approvals.sqlite', help='the DBOS system database URL')
    parser.add_argument('--port', type=int, default=8000, help='the port to listen on (default 8000)')
    args = parser.parse_args(argv)
    uvicorn.run(create_app(args.db), host='127.0.0.1', port=args.port, log_level='warning')


if __name__ == '__main__':  # pragma: no cover -- run as a program, not imported
    main()
