"""The loop's own cost per step at earlier commits, against the working tree, measured side by side.

`python -m benchmarks.history [REV ...]` checks each revision out into a temporary git worktree, runs the `loop`
workload of `workloads.py` (N = 200, a sync tool per step) with that revision's package first on the path, in a
fresh interpreter, alternating the revisions and the working tree for `BENCH_ROUNDS` rounds, and prints the
medians. The default revisions mark where features landed: the deferred tool handler (9ccc5d8), issues 9 to 11
(92a1f65) and issues 12 to 18 (9961283). Nothing is asserted.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from .compare import run_workload

ROOT = Path(__file__).parent.parent
ROUNDS = int(os.environ.get('BENCH_ROUNDS', '3'))
DEFAULT_REVISIONS = ('9ccc5d8', '92a1f65', '9961283')


def per_step_us(package_root: Path, steps: int = 200) -> float:
    """One sample of the loop workload, with the package under `package_root` imported."""
    env = {**os.environ, 'PYTHONPATH': str(package_root / 'pydantic_ai_slim')}
    return run_workload(sys.executable, 'loop', str(steps), env=env)['us_per_step']


def main(revisions: list[str]) -> None:
    """Print the median µs per step of each revision and of the working tree."""
    with tempfile.TemporaryDirectory() as trees:
        roots: dict[str, Path] = {}
        for rev in revisions:
            roots[rev] = Path(trees) / rev
            git = ['git', '-C', str(ROOT), 'worktree', 'add', '--detach', '--quiet', str(roots[rev]), rev]
            subprocess.run(git, check=True)
        roots['working tree'] = ROOT
        try:
            samples: dict[str, list[float]] = {name: [] for name in roots}
            for _ in range(ROUNDS):
                for name, root in roots.items():
                    samples[name].append(per_step_us(root))
        finally:
            for rev in revisions:
                subprocess.run(['git', '-C', str(ROOT), 'worktree', 'remove', '--force', str(roots[rev])], check=True)
    print(f'loop overhead per step, sync tool, N=200 ({ROUNDS} interleaved rounds, medians):')
    for name, values in samples.items():
        print(f'  {name:>12}: {statistics.median(values):7.1f} us/step')


if __name__ == '__main__':
    main(sys.argv[1:] or list(DEFAULT_REVISIONS))
