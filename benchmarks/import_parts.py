"""Where ours' own part of a cold `import pydantic_ai` goes: the package after its dependencies are loaded.

Each sample is a fresh interpreter that first imports every module the package loads from outside itself (the
`DEPENDENCIES` line of `compare.py`), then times `import pydantic_ai`, and the share of that time the standard
library's `dataclasses` spends turning our classes into dataclasses (generating and compiling their `__init__`,
`__repr__` and `__eq__`). It does so by timing `dataclasses._process_class`, the function every `@dataclass`
goes through, so this is a measurement tool for this CPython, not something the package does. Nothing is asserted.
"""

from __future__ import annotations

import statistics
import sys

from .compare import DEPENDENCIES, run_json

CHILD = f"""
{DEPENDENCIES}
import dataclasses, json, time

process_class = dataclasses._process_class
spent = [0.0, 0]

def timed_process_class(cls, *args, **kwargs):
    start = time.perf_counter()
    try:
        return process_class(cls, *args, **kwargs)
    finally:
        if cls.__module__.startswith('pydantic_ai'):
            spent[0] += time.perf_counter() - start
            spent[1] += 1

dataclasses._process_class = timed_process_class
start = time.perf_counter()
import pydantic_ai
total = time.perf_counter() - start
print(json.dumps({{'package_ms': total * 1e3, 'dataclasses_ms': spent[0] * 1e3, 'classes': spent[1]}}))
"""


def main(samples: int = 7) -> None:
    figures = [run_json(sys.executable, '-c', CHILD) for _ in range(samples)]
    package = statistics.median(f['package_ms'] for f in figures)
    spent = statistics.median(f['dataclasses_ms'] for f in figures)
    classes = int(figures[0]['classes'])
    print(f'`import pydantic_ai` once its dependencies are loaded (median of {samples}): {package:.1f} ms')
    print(f'  of which `dataclasses` making our {classes} dataclasses: {spent:.1f} ms')


if __name__ == '__main__':
    main()
