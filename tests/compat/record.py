"""Record what upstream prints for the compat programs.

usage: python tests/compat/record.py REFERENCE_PYTHON [NAME ...]

REFERENCE_PYTHON is the interpreter of a venv holding upstream pydantic-ai-slim v1.51, e.g.
`$(../shared/tools/_upstream_venv.sh 1.51.0 openai,ui)/bin/python`. Each program `NAME.py` here is run under
it and its normalised output written to `NAME.upstream.txt`, which `tests/test_compat.py` compares our output with.
"""

from __future__ import annotations

import sys
from pathlib import Path

from _run import run_program

HERE = Path(__file__).parent


def main(argv: list[str]) -> None:
    python, *names = argv
    programs = [HERE / f'{name}.py' for name in names] or sorted(
        p for p in HERE.glob('*.py') if not p.name.startswith('_') and p.name != 'record.py'
    )
    for program in programs:
        program.with_suffix('.upstream.txt').write_text(run_program(python, program))
        print(f'recorded {program.stem}')


if __name__ == '__main__':
    main(sys.argv[1:])
