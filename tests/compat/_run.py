"""Run one compat program in a subprocess and return its normalised output, exit code included.

Normalisation follows the shared `upstream-diff` tool, so a recorded upstream output compares equal to ours.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

_PATTERNS = [
    (re.compile(r'\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?'), 'DT'),
    (re.compile(r'pyd_ai_[0-9a-f]{32}'), 'ID'),
    (re.compile(r'[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}'), 'ID'),
    (re.compile(r'0x[0-9a-fA-F]{6,}'), '0x?'),
    (re.compile(r'File "[^"]*", line \d+'), 'File "?", line ?'),
]


def _drop_datetime_reprs(text: str) -> str:
    out: list[str] = []
    i = 0
    while (j := text.find('datetime.datetime(', i)) >= 0:
        out.append(text[i:j])
        k, depth = j + len('datetime.datetime('), 1
        while k < len(text) and depth:
            depth += {'(': 1, ')': -1}.get(text[k], 0)
            k += 1
        out.append('DT')
        i = k
    out.append(text[i:])
    return ''.join(out)


def normalize(text: str) -> str:
    """Return `text` with datetimes, generated ids, addresses and traceback locations replaced by placeholders."""
    text = _drop_datetime_reprs(text)
    for pattern, placeholder in _PATTERNS:
        text = pattern.sub(placeholder, text)
    return text


def run_program(python: str, program: Path) -> str:
    """Run `program` with `python` (no network, fixed hash seed and time zone) and return its normalised output."""
    env = {**os.environ, 'PYTHONHASHSEED': '0', 'TZ': 'UTC'}
    env.pop('PYTHONPATH', None)
    proc = subprocess.run(
        [python, str(program)], capture_output=True, text=True, timeout=120, env=env, cwd=program.parent, check=False
    )
    # The repository's own location differs between checkouts, so it is blanked too.
    output = (proc.stdout + proc.stderr).replace(str(program.parent.parent.parent), '<repo>')
    return normalize(output + f'[exit {proc.returncode}]\n')
