"""What importing the package costs: the heavy modules a plain run never imports, and the deferred `httpx`."""

from __future__ import annotations

import inspect
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pydantic
import pytest
from inline_snapshot import snapshot
from pydantic_ai._graph_import import import_deferring
from pydantic_ai._validated_dataclass import validated_dataclass

# Modules that `from pydantic_ai import Agent` and a run with the test model must not import: each is a
# noticeable part of a cold start and is needed only by optional features.
HEAVY_MODULES = (
    'httpx',
    'rich',
    'griffe',
    'genai_prices',
    'pydantic_ai.models.instrumented',
    'pydantic_ai._otel_messages',
    'xml.etree.ElementTree',
    'anyio.streams.memory',
    # pydantic scans the installed packages for plugins when it builds its first schema.
    'importlib.metadata',
)


def _run(code: str) -> str:
    return subprocess.run(
        [sys.executable, '-c', textwrap.dedent(code)], check=True, capture_output=True, text=True, cwd=Path.home()
    ).stdout


def test_plain_run_imports_no_heavy_module():
    out = _run(f"""
        import sys

        from pydantic_ai import Agent

        print(Agent('test').run_sync('hi').output)
        print(sorted(name for name in {HEAVY_MODULES!r} if name in sys.modules))
        """)
    assert out.splitlines() == snapshot(['success (no tool calls)', '[]'])


def test_mermaid_image_works_through_the_deferred_httpx():
    out = _run("""
        import sys

        import pydantic_ai
        import pydantic_graph.mermaid as mermaid

        print(type(mermaid.httpx).__name__, 'httpx' in sys.modules)
        import httpx

        def handler(request: httpx.Request) -> httpx.Response:
            if request.url.params.get('theme') == 'fail':
                return httpx.Response(500, text='no')
            return httpx.Response(200, content=b'png')

        client = httpx.Client(transport=httpx.MockTransport(handler))
        from pydantic_ai._agent_graph import build_agent_graph

        graph = build_agent_graph('demo')
        print(graph.mermaid_image(httpx_client=client))
        try:
            graph.mermaid_image(httpx_client=client, theme='fail')
        except httpx.HTTPStatusError as e:
            print(type(e).__name__, e.response.status_code)
        print(mermaid.httpx.Client is httpx.Client, sys.modules['httpx'] is httpx)
        """)
    assert out.splitlines() == snapshot(['_DeferredModule False', "b'png'", 'HTTPStatusError 500', 'True True'])


@pytest.fixture
def modules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Throwaway modules: `cheap_user` imports `costly` at module level but uses it only in a function."""
    (tmp_path / 'costly.py').write_text('VALUE = 42\n')
    (tmp_path / 'cheap_user.py').write_text(
        textwrap.dedent("""
            import costly

            def use():
                return costly.VALUE
            """)
    )
    (tmp_path / 'broken_user.py').write_text('import costly\nraise RuntimeError("broken")\n')
    monkeypatch.syspath_prepend(str(tmp_path))  # pyright: ignore[reportUnknownMemberType] -- untyped in pytest
    yield tmp_path
    for name in ('costly', 'cheap_user', 'broken_user', 'eager_user'):
        sys.modules.pop(name, None)


def test_deferred_module_imports_on_first_use(modules: Path):
    import_deferring('cheap_user', 'costly')
    user = sys.modules['cheap_user']
    assert 'costly' not in sys.modules
    assert type(user.costly).__name__ == '_DeferredModule'

    assert user.use() == 42
    real = sys.modules['costly']
    assert user.costly.VALUE is real.VALUE
    assert 'VALUE' in dir(user.costly)


def test_deferred_module_left_alone_when_already_imported(modules: Path):
    import costly  # pyright: ignore[reportMissingImports]

    import_deferring('cheap_user', 'costly')
    assert sys.modules['cheap_user'].costly is costly


def test_deferred_module_removed_when_the_import_fails(modules: Path):
    with pytest.raises(RuntimeError, match='broken'):
        import_deferring('broken_user', 'costly')
    assert 'costly' not in sys.modules
    assert 'broken_user' not in sys.modules


def test_deferred_module_loaded_inside_the_import(modules: Path):
    # A module that uses the deferred module while it is being imported gets the real one through the proxy.
    (modules / 'eager_user.py').write_text('import costly\nVALUE = costly.VALUE\n')
    import_deferring('eager_user', 'costly')
    assert sys.modules['eager_user'].VALUE == 42
    assert type(sys.modules['costly']).__name__ == 'module'


def test_deferred_pydantic_dataclass_has_its_declared_signature():
    @validated_dataclass(pydantic.ConfigDict())
    class Point:
        x: int

        def __init__(self, x: int, *, label: str = '') -> None: ...

    bare = Point.__new__(Point)
    with pytest.raises(AttributeError, match="'__signature__' attribute of 'Point' is class-only"):
        getattr(bare, '__signature__')  # noqa: B009 -- the attribute is not declared on the class
    assert vars(Point)['__pydantic_complete__'] is False
    assert str(inspect.signature(Point)) == snapshot("(x: 'int', *, label: 'str' = '') -> None")
    assert vars(Point)['__pydantic_complete__'] is True


def test_deferred_pydantic_dataclass_validates_on_first_construction():
    @validated_dataclass(pydantic.ConfigDict())
    class Point:
        x: int

        def __init__(self, x: int) -> None: ...

    assert Point(x='3').x == 3  # pyright: ignore[reportArgumentType] -- validated and converted
    assert str(inspect.signature(Point)) == snapshot("(x: 'int') -> None")


def test_deferred_pydantic_dataclass_is_built_once():
    @validated_dataclass(pydantic.ConfigDict())
    class Point:
        x: int

        def __init__(self, x: int) -> None: ...

    unbuilt_init = Point.__init__
    point = Point(x=1)
    # A caller that looked `__init__` up before the build, as another thread can, gets the built one.
    unbuilt_init(point, x=2)
    assert point.x == 2
    assert Point.__init__ is not unbuilt_init
