"""Takes the screenshots of docs/chat.md: `python tests/e2e/screenshots.py` (needs tmux, node, chromium).

The terminal chat runs in a tmux session and is answered with `send-keys`; `capture-pane -e` gives the screen
with its colours, which rich renders to HTML and headless chromium to a PNG. The browser chat is screenshotted by
`chat.mjs` while approvals are pending.
"""

from __future__ import annotations

import io
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import uvicorn
from pydantic_ai_examples.vercel_ai_chat import FileStore, create_agent
from rich.console import Console
from rich.terminal_theme import TerminalTheme
from rich.text import Text

ROOT = Path(__file__).parent.parent.parent
DOCS = ROOT / 'docs' / 'img'
SESSION = 'pai-chat-screenshot'
COLUMNS, ROWS = 120, 44


def tmux(*args: str) -> str:
    return subprocess.run(['tmux', *args], check=True, capture_output=True, text=True).stdout


def wait_for(text: str, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while text not in tmux('capture-pane', '-p', '-t', SESSION):
        if time.monotonic() > deadline:
            raise TimeoutError(f'{text!r} did not appear in the terminal.')
        time.sleep(0.1)


def terminal_screenshot(path: Path) -> None:
    command = f'{sys.executable} -m pydantic_ai_examples.approval.chat --delay 0.01'
    tmux('new-session', '-d', '-s', SESSION, '-x', str(COLUMNS), '-y', str(ROWS), '-c', str(ROOT), command)
    try:
        wait_for('sysadmin ➤')
        tmux('send-keys', '-t', SESSION, 'Find the process hogging port 8080 and stop it.', 'Enter')
        wait_for('Approve kill_process?')
        tmux('send-keys', '-t', SESSION, 'n', 'Enter')
        wait_for('Reason for the model')
        tmux('send-keys', '-t', SESSION, 'it is serving a demo', 'Enter')
        wait_for('Approve stop_service?')
        time.sleep(0.3)
        screen = tmux('capture-pane', '-p', '-e', '-t', SESSION)
    finally:
        tmux('kill-session', '-t', SESSION)
    console = Console(record=True, width=COLUMNS, file=io.StringIO(), force_terminal=True)
    console.print(Text.from_ansi(screen.rstrip('\n')))
    html = console.export_html(theme=_THEME, inline_styles=True, code_format=_PAGE)
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / 'terminal.html'
        page.write_text(html, encoding='utf-8')
        _chromium_screenshot(page.as_uri(), path, 1000, 760)


# GitHub's dark palette: background, foreground, then the eight normal and eight bright ANSI colours.
_THEME = TerminalTheme(
    (13, 17, 23),
    (230, 237, 243),
    [
        (72, 79, 88),
        (255, 123, 114),
        (63, 185, 80),
        (210, 153, 34),
        (88, 166, 255),
        (188, 140, 255),
        (57, 197, 207),
        (177, 186, 196),
    ],
    [
        (110, 118, 129),
        (255, 161, 152),
        (86, 211, 100),
        (227, 179, 65),
        (121, 192, 255),
        (210, 168, 255),
        (86, 212, 221),
        (255, 255, 255),
    ],
)

_PAGE = """<!doctype html><html><head><meta charset="utf-8"><style>
body {{ margin: 0; background: #0d1117; }}
pre {{ margin: 0; padding: 14px 18px; color: #e6edf3; background: #0d1117;
       font: 13px/1.35 'DejaVu Sans Mono', monospace; }}
</style></head><body><pre style="{stylesheet}"><code>{code}</code></pre></body></html>"""


def _chromium_screenshot(url: str, path: Path, width: int, height: int) -> None:
    subprocess.run(
        [
            '/usr/bin/chromium',
            '--headless',
            '--no-sandbox',
            '--disable-gpu',
            '--hide-scrollbars',
            f'--window-size={width},{height}',
            f'--screenshot={path}',
            url,
        ],
        check=True,
        capture_output=True,
    )


def web_screenshot(path: Path) -> None:
    app = create_agent(FileStore()).to_web()
    server = uvicorn.Server(uvicorn.Config(app, host='127.0.0.1', port=0, log_level='warning', lifespan='off'))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        thread.join(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        subprocess.run(
            ['node', 'chat.mjs', f'http://127.0.0.1:{port}', str(path)], cwd=ROOT / 'tests' / 'e2e', check=True
        )
    finally:
        server.should_exit = True
        thread.join(10)


if __name__ == '__main__':
    DOCS.mkdir(parents=True, exist_ok=True)
    terminal_screenshot(DOCS / 'chat-terminal.png')
    web_screenshot(DOCS / 'chat-web.png')
