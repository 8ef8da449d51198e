"""Every program in tests/compat/ prints under our package exactly what upstream printed (recorded next to it)."""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path

import pytest

from .compat._run import run_program

PROGRAMS = sorted(p for p in (Path(__file__).parent / 'compat').glob('*.py') if p.with_suffix('.upstream.txt').exists())


def _run(program: Path) -> str:
    return run_program(sys.executable, program)


@cache
def _outputs() -> dict[Path, str]:
    # Each program is a subprocess that mostly waits on its own start-up, so they run a few at a time.
    with ThreadPoolExecutor(max_workers=4) as pool:
        return dict(zip(PROGRAMS, pool.map(_run, PROGRAMS), strict=True))


@pytest.mark.parametrize('program', PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_same_output_as_upstream(program: Path) -> None:
    assert _outputs()[program] == program.with_suffix('.upstream.txt').read_text()
