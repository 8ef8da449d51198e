"""Every `python` fence in docs/ and README.md runs, and what it prints matches its `#>` lines.

A fence is a program on its own. Lines starting with `#>` after a `print(...)` give the expected output of
the prints above them, in order; a fence without `#>` lines must simply run without error. A fence whose
info string names a scripted server (`test="local-server"` for OpenAI's Chat Completions API, `test="responses-server"`
for OpenAI's Responses API, `test="anthropic-server"` for Anthropic's Messages API) runs against one on 127.0.0.1 that
answers with the fence's expected output, in place of the URL the example names.
"""

from __future__ import annotations

import contextlib
import gc
import io
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from . import _anthropic_server, _responses_server
from ._openai_server import chat_server, completion

# For each kind of scripted server: the URL the examples name, whether the SDK wants `/v1` in the base URL, and
# the body that answers with a given text.
SERVERS: dict[str, tuple[str, bool, Callable[[str], Any]]] = {
    'local-server': ('http://localhost:11434/v1', True, lambda text: completion(text)),
    'responses-server': (
        'https://api.openai.com/v1',
        True,
        lambda text: _responses_server.response(_responses_server.message(text)),
    ),
    'anthropic-server': (
        'https://api.anthropic.com',
        False,
        lambda text: _anthropic_server.message(_anthropic_server.text(text)),
    ),
}
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
    kind = next((kind for kind in SERVERS if f'test="{kind}"' in info), None)
    with contextlib.ExitStack() as stack:
        if kind is not None:
            url, with_v1, body = SERVERS[kind]
            server = stack.enter_context(chat_server())
            server.add_json(body(expected))
            code = code.replace(url, server.base_url if with_v1 else server.base_url.removesuffix('/v1'))
        stack.enter_context(contextlib.redirect_stdout(out))
        namespace: dict[str, object] = {'__name__': '__main__'}
        exec(compile(code, where, 'exec', dont_inherit=True), namespace)
    if kind is not None:
        # The example's SDK client keeps its connection open, as a program would until it exits; collect it here
        # so its "unclosed socket" warning is raised (and ignored) now rather than during a later test.
        namespace.clear()
        gc.collect()
    if expected:
        assert out.getvalue().rstrip('\n') == expected, where


def test_docs_examples_exist() -> None:
    assert len(EXAMPLES) >= 1
