"""Every program in tests/compat/ prints under our package exactly what upstream printed (recorded next to it)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from .compat._run import run_program

PROGRAMS = sorted(p for p in (Path(__file__).parent / 'compat').glob('*.py') if p.with_suffix('.upstream.txt').exists())


@pytest.mark.parametrize('program', PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_same_output_as_upstream(program: Path) -> None:
    expected = program.with_suffix('.upstream.txt').read_text()
    assert run_program(sys.executable, program) == expected
