"""Every `python` fence in docs/ and README.md runs, and what it prints matches its `#>` lines.

A fence is a program on its own. Lines starting with `#>` after a `print(...)` give the expected output of
the prints above them, in order; a fence without `#>` lines must simply run without error. A fence whose
info string contains `test="skip"` is not run (use sparingly: only for code that needs a real provider).
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
FENCE = re.compile(r'^```(?:py|python)([^\n]*)\n(.*?)^```', re.MULTILINE | re.DOTALL)


def _examples() -> list[tuple[str, str, str]]:
    files = [ROOT / 'README.md', *sorted((ROOT / 'docs').rglob('*.md'))]
    found: list[tuple[str, str, str]] = []
    for path in files:
        text = path.read_text()
        for match in FENCE.finditer(text):
            line = text[: match.start()].count('\n') + 1
            found.append((f'{path.relative_to(ROOT)}:{line}', match.group(1), match.group(2)))
    return found


EXAMPLES = _examples()


def _expected_output(code: str) -> str:
    lines = [line[3:] if line.startswith('#> ') else line[2:] for line in code.splitlines() if line.startswith('#>')]
    return '\n'.join(lines)


@pytest.mark.parametrize(('where', 'info', 'code'), EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_docs_example(where: str, info: str, code: str) -> None:
    if 'test="skip"' in info:
        pytest.skip('marked test="skip"')
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, where, 'exec', dont_inherit=True), {'__name__': '__main__'})
    expected = _expected_output(code)
    if expected:
        assert out.getvalue().rstrip('\n') == expected, where


def test_docs_examples_exist() -> None:
    assert len(EXAMPLES) >= 1
