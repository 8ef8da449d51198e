"""Every `python` fence in docs/ and README.md runs, and what it prints matches its `#>` lines.

A fence is a program on its own. Lines starting with `#>` after a `print(...)` give the expected output of
the prints above them, in order; a fence without `#>` lines must simply run without error. A fence whose
info string contains `test="local-server"` talks to a local OpenAI-compatible server: it runs against a scripted
one on 127.0.0.1 that answers with the fence's expected output.
"""

from __future__ import annotations

import contextlib
import gc
import io
import re
from pathlib import Path

import pytest

from ._openai_server import chat_server, completion

LOCAL_SERVER_URL = 'http://localhost:11434/v1'
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


@pytest.mark.filterwarnings('ignore::pytest.PytestUnraisableExceptionWarning')
@pytest.mark.parametrize(('where', 'info', 'code'), EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_docs_example(where: str, info: str, code: str) -> None:
    expected = _expected_output(code)
    out = io.StringIO()
    with contextlib.ExitStack() as stack:
        if 'test="local-server"' in info:
            server = stack.enter_context(chat_server())
            server.add_json(completion(expected))
            code = code.replace(LOCAL_SERVER_URL, server.base_url)
        stack.enter_context(contextlib.redirect_stdout(out))
        namespace: dict[str, object] = {'__name__': '__main__'}
        exec(compile(code, where, 'exec', dont_inherit=True), namespace)
    if 'test="local-server"' in info:
        # The example's SDK client keeps its connection open, as a program would until it exits; collect it here
        # so its "unclosed socket" warning is raised (and ignored) now rather than during a later test.
        namespace.clear()
        gc.collect()
    if expected:
        assert out.getvalue().rstrip('\n') == expected, where


def test_docs_examples_exist() -> None:
    assert len(EXAMPLES) >= 1
