"""Approval ids bound to the tool call they approve.

With a server secret, an approval id is an HMAC-SHA256 over the tool call id, the tool name and the SHA-256 of the
call's arguments as canonical JSON (sorted keys, no spaces), laid out as the AI SDK lays out its own approval
signatures (newline-separated fields, base64url without padding). The id carries the HMAC itself because early v6
clients refuse the SDK's later `signature` chunk key. The client echoes the id back with the user's answer; the
server recomputes it from the call the client sent, so an approval for a call the server never asked about, or for
arguments changed on the way, does not verify. Without a secret, ids are random and the client is trusted.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from dataclasses import dataclass
from typing import Any
from uuid import uuid4

__all__ = ('ApprovalSigner', 'canonical_json')

_PREFIX = 'aprv_'


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
