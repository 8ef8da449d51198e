"""Durable agent runs on DBOS Transact: model requests (and optionally tool calls) are steps of a workflow.

A `DBOSAgent` wraps an agent so that `run` and `run_sync` are DBOS workflows, recovered after a crash or a
restart from their last completed step. `wait_for_deferred_tool_results` is a deferred tool handler that waits
for people durably (days, across restarts), and `DBOSApprovalClient` is how the people's side answers from
any process that can reach the system database.
"""

from __future__ import annotations

try:
    import dbos as _dbos  # noqa: F401  # pyright: ignore[reportUnusedImport]  # Only checks that the extra is installed.
except ImportError as _import_error:  # pragma: no cover
    raise ImportError(
        'Please install the `dbos` package to use DBOS durable execution, '
        'you can use the `dbos` optional group — `pip install "pydantic-ai-slim[dbos]"`'
    ) from _import_error

from ._agent import DBOSAgent
from ._approvals import DBOSApprovalClient, wait_for_deferred_tool_results
from ._mcp_server import DBOSMCPServer
from ._model import DBOSModel
from ._utils import DBOSParallelExecutionMode, StepConfig

__all__ = (
    'DBOSAgent',
    'DBOSApprovalClient',
    'DBOSMCPServer',
    'DBOSModel',
    'DBOSParallelExecutionMode',
    'StepConfig',
    'wait_for_deferred_tool_results',
)
