"""`python -m pydantic_ai_examples.vercel_ai_chat [--model MODEL] [--port PORT] [--static DIR]`: serve the chat app."""

from __future__ import annotations

import argparse
from pathlib import Path

import uvicorn

from .app import create_app


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and run the app with uvicorn on 127.0.0.1."""
    parser = argparse.ArgumentParser(prog='python -m pydantic_ai_examples.vercel_ai_chat', description=__doc__)
    parser.add_argument('--model', help='a model name such as openai:gpt-5; the scripted model by default')
    parser.add_argument('--port', type=int, default=8000, help='the port to listen on (default 8000)')
    parser.add_argument('--static', type=Path, help='a directory with a built page to serve at /')
    args = parser.parse_args(argv)
    app = create_app(model=args.model, static_dir=args.static)
    uvicorn.run(app, host='127.0.0.1', port=args.port)


if __name__ == '__main__':  # pragma: no cover -- run as a program, not imported
    main()
