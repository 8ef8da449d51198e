"""A durable approval service: agent runs that wait for a person's approval in an inbox, and survive restarts.

`python -m pydantic_ai_examples.durable_approvals --db sqlite:///approvals.sqlite` serves it on 127.0.0.1.
Runs are DBOS workflows (SQLite by default, PostgreSQL with a `postgresql://` URL); a run whose model asks to
delete a file waits, durably, until someone approves or denies it on the inbox page. Stop the server while a
run waits, start it again, and approve: the run finishes without repeating its first model request.
"""

from __future__ import annotations

from .app import create_agent, create_app

__all__ = ('create_agent', 'create_app')
