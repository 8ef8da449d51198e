"""The `tests/compat/surface_*.py` programs print what upstream pydantic-ai v1.51 printed for them.

Each program was run under upstream (with `../shared/tools/upstream-diff`) and its output, with run-to-run
values (ids, datetimes, addresses) normalised, is kept beside it as `surface_*.expected`. Here each runs under
this package and its normalised output must equal the kept one. To refresh a kept output, run the program under
upstream's reference venv, normalise it the same way, and check the difference by hand.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

COMPAT_DIR = Path(__file__).parent / 'compat'
PROGRAMS = sorted(COMPAT_DIR.glob('surface_*.py'))


def normalise(text: str) -> str:
    """Replace what differs between two runs of the same program: datetimes, ids, addresses, source lines."""
    text = re.sub(r'datetime\.datetime\([^()]*(?:\([^()]*\)[^()]*)*\)', 'DT', text)
    text = re.sub(r'\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?', 'DT', text)
    text = re.sub(r'pyd_ai_[0-9a-f]{32}', 'ID', text)
    text = re.sub(r'[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}', 'ID', text)
    text = re.sub(r'0x[0-9a-fA-F]{6,}', '0x?', text)
    return re.sub(r'File "[^"]*", line \d+', 'File "?", line ?', text)


@pytest.mark.parametrize('program', PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_prints_what_upstream_printed(program: Path):
    env = {**os.environ, 'PYTHONHASHSEED': '0', 'TZ': 'UTC'}
    proc = subprocess.run(
        [sys.executable, str(program)], capture_output=True, text=True, env=env, timeout=120, check=False
    )
    printed = normalise(proc.stdout + proc.stderr) + f'[exit {proc.returncode}]\n'
    assert printed == program.with_suffix('.expected').read_text()


def test_normalise():
    assert normalise('at 0x7f00aa11bb22, id pyd_ai_' + '0' * 32) == 'at 0x?, id ID'
    assert normalise('datetime.datetime(2026, 1, 1, 0, 0, tzinfo=datetime.timezone.utc) 2026-01-01T00:00:00Z') == (
        'DT DT'
    )
