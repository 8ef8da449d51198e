"""Approval ids bound to the tool call they approve.

With a server secret, an approval id is an HMAC-SHA256 over the tool call id, the tool name and the SHA-256 of the
call's arguments as canonical JSON (sorted keys, no spaces), laid out as the AI SDK lays out its own approval
signatures (newline-separated fields, base64url without padding). The id carries the HMAC itself because early v6
clients refuse the SDK's later `signature` chunk key. The client echoes the id back with the user's answer; the
server recomputes it from the call the client sent, so an approval for a call the server never asked about, or for
arguments changed on the way, does not verify. Without a secret, ids are random and the client is trusted; the adapter
never does that with `tool_approval=True`: it falls back on `default_secret()`.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
import threading
import warnings
from dataclasses import dataclass
from typing import Any
from uuid import uuid4

__all__ = ('SECRET_ENV', 'ApprovalSigner', 'canonical_json', 'default_secret')

_PREFIX = 'aprv_'

SECRET_ENV = 'PYDANTIC_AI_APPROVAL_SECRET'
"""The environment variable that holds the approval secret when the adapter is not given one."""

_process_secret: list[bytes] = []
_process_secret_lock = threading.Lock()


def default_secret() -> bytes:
    """The secret to sign approvals with when none is given: `$PYDANTIC_AI_APPROVAL_SECRET`, else one per process.

    The per-process secret is made (with a warning) the first time it is needed. Approvals signed with it are
    refused by any other process, including this server after a restart and the other workers of a deployment.
    """
    from_env = os.environ.get(SECRET_ENV)
    if from_env:
        return from_env.encode()
    with _process_secret_lock:
        if not _process_secret:
            _process_secret.append(secrets.token_bytes(32))
            warnings.warn(
                f'No approval secret is set, so tool approvals are signed with a random secret made for this process: '
                f'approvals given before a restart, or sent to another worker process, will be refused. Set the '
                f'`{SECRET_ENV}` environment variable to the same secret value in every worker (or pass '
                f'`approval_secret=` to the adapter) to keep them valid.',
                UserWarning,
                stacklevel=2,
            )
        return _process_secret[0]


def canonical_json(value: Any) -> str:
    """`value` as JSON with sorted keys and no whitespace, the same bytes for the same data."""
    return json.dumps(value, sort_keys=True, separators=(',', ':'), ensure_ascii=False)


@dataclass(frozen=True)
class ApprovalSigner:
    """Issues and checks approval ids."""

    secret: bytes | None = None
    """The server secret; `None` to issue random ids and accept any."""

    @classmethod
    def from_secret(cls, secret: str | bytes | None) -> ApprovalSigner:
        """A signer for a secret given as text or bytes."""
        return cls(secret.encode() if isinstance(secret, str) else secret)

    def issue(self, tool_name: str, tool_call_id: str, args: dict[str, Any]) -> str:
        """The approval id for a call."""
        if self.secret is None:
            return str(uuid4())
        return _PREFIX + self._digest(tool_name, tool_call_id, args)

    def verify(self, approval_id: str, tool_name: str, tool_call_id: str, args: dict[str, Any]) -> bool:
        """Whether `approval_id` was issued for exactly this call."""
        if self.secret is None:
            return True
        expected = _PREFIX + self._digest(tool_name, tool_call_id, args)
        return hmac.compare_digest(expected.encode(), approval_id.encode())

    def _digest(self, tool_name: str, tool_call_id: str, args: dict[str, Any]) -> str:
        assert self.secret is not None
        input_digest = _b64url(hashlib.sha256(canonical_json(args).encode()).digest())
        payload = f'{_PREFIX}\n{tool_call_id}\n{tool_name}\n{input_digest}'.encode()
        return _b64url(hmac.new(self.secret, payload, hashlib.sha256).digest())


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b'=').decode()
