"""Side by side with upstream: each workload of `workloads.py` under upstream pydantic-ai-slim 1.x and under ours.

Upstream is installed into a throwaway venv outside the project (`$TMPDIR/pai-bench-upstream`, built once from
PyPI with the newest 1.x release); the project's `.venv` is never touched. Ours runs from the project's `.venv`,
which holds every extra and the test tools; one row also imports ours from a plain install, as upstream's is: a
wheel of the working tree with only its own dependencies, in a second throwaway venv (`$TMPDIR/pai-bench-ours`).
Every workload runs in a fresh interpreter, alternating upstream and ours, for `ROUNDS` rounds; the table gives
the medians and their ratio, so every ratio comes from one run on one machine. Nothing here is asserted.

`make bench` prints every row; `python -m benchmarks.compare loop fanout` only those of the named workloads.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROUNDS = int(os.environ.get('BENCH_ROUNDS', '3'))
HERE = Path(__file__).parent
WORKLOADS = HERE / 'workloads.py'
UPSTREAM_VENV = Path(os.environ.get('BENCH_UPSTREAM_VENV', Path(tempfile.gettempdir()) / 'pai-bench-upstream'))
PLAIN_VENV = Path(os.environ.get('BENCH_PLAIN_VENV', Path(tempfile.gettempdir()) / 'pai-bench-ours'))
PACKAGE = HERE.parent / 'pydantic_ai_slim'


@dataclass
class Measure:
    """One row of the table: how to take a figure, and the goal for ours / upstream."""

    label: str
    workload: tuple[str, ...]
    key: str
    goal: str
    plain: bool = False
    """Whether ours is taken from the plain install rather than the project's `.venv`."""


MEASURES = [
    Measure('cold `import pydantic_ai` (ms)', ('import',), 'ms', 'ours/upstream <= 0.4'),
    Measure('cold `import pydantic_ai`, ours as a plain install (ms)', ('import',), 'ms', '', plain=True),
    Measure('loop overhead per step, sync tool, N=20 (µs)', ('loop', '20'), 'us_per_step', ''),
    Measure('loop overhead per step, sync tool, N=200 (µs)', ('loop', '200'), 'us_per_step', 'ours/upstream <= 0.25'),
    Measure('loop overhead per step, sync tool, N=2000 (µs)', ('loop', '2000'), 'us_per_step', ''),
    Measure(
        'fan-out, per sync tool call in one response (µs)', ('fanout', '200'), 'us_per_call', 'ours/upstream <= 0.5'
    ),
    Measure('peak RSS of a 2,000-step run (MB)', ('rss', '2000'), 'peak_rss_mb', 'ours/upstream <= 0.8'),
    Measure('streamed text, per delta (µs)', ('stream', '2000'), 'us_per_delta', 'ours/upstream <= 0.3'),
    Measure('20 approved 50 ms calls (s)', ('approved', '20'), 'seconds', 'ours <= 1.1 x 0.05 s'),
    Measure('cold `from pydantic_ai import Agent` (ms)', ('import', 'Agent'), 'ms', 'ours/upstream <= 0.4'),
    Measure('cold import and a first `TestModel` run (ms)', ('import', 'run'), 'ms', ''),
    Measure('floor: python + pydantic-graph + `pydantic.json_schema` (ms)', ('import', 'floor'), 'ms', ''),
    Measure('the floor + the pydantic and anyio modules ours imports (ms)', ('import', 'dependencies'), 'ms', ''),
]

FIRST_RUN = (
    "from pydantic_ai import Agent; from pydantic_ai.models.test import TestModel; Agent(TestModel()).run_sync('hi')"
)

FLOOR = (
    # What any package on pydantic-graph pays before its own code: the interpreter, pydantic-graph with the
    # modules it imports (asyncio, logfire-api, opentelemetry; not httpx, which it only needs for Mermaid
    # images and which ours defers), and the pydantic module the tool signatures' default schema generator
    # comes from.
    "import sys, types; sys.modules['httpx'] = types.ModuleType('httpx'); import pydantic_graph, pydantic.json_schema"
)

DEPENDENCIES = (
    # The floor, and the rest of what `import pydantic_ai` (ours) loads from outside the package: pydantic's
    # model, field, dataclass and type-adapter modules, which the message and usage classes need, and anyio.
    FLOOR + ', pydantic.main, pydantic.fields, pydantic.types, pydantic.dataclasses, pydantic.type_adapter, anyio'
)

IMPORTS: dict[tuple[str, ...], str] = {
    ('import',): 'import pydantic_ai',
    ('import', 'Agent'): 'from pydantic_ai import Agent',
    ('import', 'run'): FIRST_RUN,
    ('import', 'floor'): FLOOR,
    ('import', 'dependencies'): DEPENDENCIES,
}
"""The code each import workload times, as `python -c CODE`."""

UPSTREAM, OURS = 0, 1
RATIOS = [
    # label, (numerator's workload, side), (denominator's workload, side), goal
    ('ours per step at N=2000 / at N=20', (('loop', '2000'), OURS), (('loop', '20'), OURS), '<= 1.2'),
    (
        'the floor (ours) / upstream cold `import pydantic_ai`',
        (('import', 'floor'), OURS),
        (('import',), UPSTREAM),
        '',
    ),
    (
        'the floor + dependencies (ours) / upstream cold `import pydantic_ai`',
        (('import', 'dependencies'), OURS),
        (('import',), UPSTREAM),
        '',
    ),
]
"""The rows below the table: ratios of two medians, printed when both workloads were measured."""


def upstream_python() -> str:
    """The interpreter of the throwaway upstream venv, built on first use."""
    python = UPSTREAM_VENV / 'bin' / 'python'
    if not python.exists():
        print(f'building {UPSTREAM_VENV} with the newest pydantic-ai-slim 1.x (once) ...', flush=True)
        subprocess.run([sys.executable, '-m', 'venv', str(UPSTREAM_VENV)], check=True)
        subprocess.run([str(python), '-m', 'pip', 'install', '-q', 'pydantic-ai-slim>=1,<2'], check=True)
    return str(python)


def plain_python() -> str:
    """The interpreter of the throwaway venv holding ours as a user installs it: a wheel, no extras.

    The venv and the dependencies are made once; the wheel of the working tree is reinstalled on every call.
    """
    python = PLAIN_VENV / 'bin' / 'python'
    if not python.exists():
        print(f'building {PLAIN_VENV} with the dependencies of ours, no extras (once) ...', flush=True)
        subprocess.run([sys.executable, '-m', 'venv', str(PLAIN_VENV)], check=True)
        subprocess.run([str(python), '-m', 'pip', 'install', '-q', str(PACKAGE)], check=True)
    pip = [str(python), '-m', 'pip', 'install', '-q', '--no-deps', '--force-reinstall', str(PACKAGE)]
    subprocess.run(pip, check=True)
    return str(python)


def version_of(python: str) -> str:
    """The version of `pydantic_ai` that `python` imports."""
    code = 'from importlib.metadata import version; print(version("pydantic-ai-slim"))'
    return subprocess.run([python, '-c', code], check=True, capture_output=True, text=True).stdout.strip()


def compile_bytecode(python: str) -> None:
    """Write the `.pyc` files of the `pydantic_ai` that `python` imports, as any non-editable install has.

    Ours is an editable install: with `PYTHONDONTWRITEBYTECODE` set, every cold import would compile the package
    from source, which upstream's wheel install never does.
    """
    code = 'import importlib.util; print(*importlib.util.find_spec("pydantic_ai").submodule_search_locations)'
    package = subprocess.run([python, '-c', code], check=True, capture_output=True, text=True).stdout.strip()
    subprocess.run([python, '-m', 'compileall', '-q', package], check=True)


def _import_ms(python: str, code: str, samples: int = 5) -> float:
    timings: list[float] = []
    for _ in range(samples):
        start = time.perf_counter()
        subprocess.run([python, '-c', code], check=True)
        timings.append(time.perf_counter() - start)
    return statistics.median(timings) * 1e3


def take(python: str, measure: Measure) -> float:
    """One sample of `measure` under `python`, in a fresh interpreter."""
    code = IMPORTS.get(measure.workload)
    if code is not None:
        return _import_ms(python, code)
    return run_workload(python, *measure.workload)[measure.key]


def run_json(python: str, *args: str, env: dict[str, str] | None = None) -> dict[str, float]:
    """The JSON object that `python ARGS` prints on its last line, run in a fresh interpreter.

    It runs from a temporary directory, so that no interpreter picks up the repository's sources from the cwd.
    """
    with tempfile.TemporaryDirectory() as cwd:
        out = subprocess.run([python, *args], check=True, capture_output=True, text=True, cwd=cwd, env=env).stdout
    return json.loads(out.splitlines()[-1])


def run_workload(python: str, *args: str, env: dict[str, str] | None = None) -> dict[str, float]:
    """The figures `workloads.py ARGS` prints, run by `python` in a fresh interpreter."""
    return run_json(python, str(WORKLOADS), *args, env=env)


def main(workloads: list[str]) -> None:
    """Print the side-by-side table: every row, or those of the named workloads (e.g. `loop fanout`)."""
    measures = [m for m in MEASURES if not workloads or m.workload[0] in workloads]
    ours, theirs = sys.executable, upstream_python()
    plain = plain_python() if any(m.plain for m in measures) else ours
    compile_bytecode(ours)
    print(f'side by side: upstream pydantic-ai-slim {version_of(theirs)} vs ours {version_of(ours)}, ')
    print(f'{ROUNDS} interleaved rounds, medians')
    print('| measure | upstream | ours | ours / upstream | goal |\n|---|---|---|---|---|')
    # (upstream, ours) of each workload, with ours from the project's `.venv`: what the ratio rows divide.
    medians: dict[tuple[str, ...], tuple[float, float]] = {}
    for measure in measures:
        up: list[float] = []
        us: list[float] = []
        for _ in range(ROUNDS):
            up.append(take(theirs, measure))
            us.append(take(plain if measure.plain else ours, measure))
        a, b = statistics.median(up), statistics.median(us)
        if not measure.plain:
            medians[measure.workload] = (a, b)
        print(f'| {measure.label} | {a:.4g} | {b:.4g} | {b / a:.2f} | {measure.goal} |', flush=True)
    for label, (top, top_side), (bottom, bottom_side), goal in RATIOS:
        if top in medians and bottom in medians:
            print(f'| {label} | | {medians[top][top_side] / medians[bottom][bottom_side]:.2f} | | {goal} |')


if __name__ == '__main__':
    main(sys.argv[1:])
