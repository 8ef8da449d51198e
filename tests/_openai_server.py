"""A scripted model API server on 127.0.0.1, for testing model clients over real HTTP.

It answers every `POST` (OpenAI's `/chat/completions` and `/responses`, Anthropic's `/messages`) with the responses queued on it, in order, and records every
request it received. Only the standard library is used, so the same module also serves probe scripts run
under other environments.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, cast

__all__ = (
    'ChatServer',
    'RecordedRequest',
    'ScriptedResponse',
    'chat_server',
    'chunk',
    'completion',
    'tool_call',
    'tool_call_delta',
    'usage',
)


@dataclass
class ScriptedResponse:
    """One queued answer: a status, headers and a body, or server-sent events."""

    status: int = 200
    """The HTTP status."""
    body: bytes = b''
    """The body, for a plain response."""
    events: list[str] | None = None
    """The `data:` payloads of a server-sent event stream, sent in order instead of `body`."""
    headers: dict[str, str] = field(default_factory=dict[str, str])
    """Extra response headers."""
    delay: float = 0.0
    """Seconds to wait before answering, to provoke client timeouts."""
    stall: float = 0.0
    """For an event stream: seconds to wait after the first event, to provoke a timeout mid-stream."""
    truncate: bool = False
    """For an event stream: announce a longer body than is sent, so the client sees the connection drop."""


@dataclass
class RecordedRequest:
    """A request the server received."""

    method: str
    """The HTTP method."""
    path: str
    """The request path."""
    headers: dict[str, str]
    """The request headers, with lower-case names."""
    body: Any
    """The request body, parsed as JSON (or the raw text if it is not JSON)."""


class ChatServer:
    """The queue of scripted responses and the log of received requests of one running server."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.requests: list[RecordedRequest] = []
        self._queue: list[ScriptedResponse] = []
        self.files: dict[str, tuple[bytes, str]] = {}
        self._lock = threading.Lock()
        self.closing = threading.Event()

    def add(self, response: ScriptedResponse) -> None:
        """Queue a response."""
        with self._lock:
            self._queue.append(response)

    def add_file(self, path: str, data: bytes, content_type: str) -> str:
        """Serve `data` at `path` for GET requests, and return its full URL."""
        self.files[path] = (data, content_type)
        return f'{self.base_url.removesuffix("/v1")}{path}'

    def add_json(self, body: Any, *, status: int = 200, headers: dict[str, str] | None = None) -> None:
        """Queue a JSON response."""
        self.add(ScriptedResponse(status=status, body=json.dumps(body).encode(), headers=dict(headers or {})))

    def add_raw(self, body: bytes, *, status: int = 200, content_type: str = 'application/json') -> None:
        """Queue a response with a raw body, e.g. one that is not valid JSON."""
        self.add(ScriptedResponse(status=status, body=body, headers={'content-type': content_type}))

    def add_stream(self, chunks: list[Any], *, done: bool = True, stall: float = 0.0, truncate: bool = False) -> None:
        """Queue a server-sent event stream of chunks (JSON values, or raw strings sent as they are).

        The stream ends with `[DONE]` unless `done` is false.
        """
        events = [c if isinstance(c, str) else json.dumps(c) for c in chunks]
        if done:
            events.append('[DONE]')
        self.add(ScriptedResponse(events=events, stall=stall, truncate=truncate))

    def add_sse(self, events: list[tuple[str, Any]], *, stall: float = 0.0, truncate: bool = False) -> None:
        """Queue a server-sent event stream of named events (`event:` and `data:` lines), as Anthropic and the
        OpenAI Responses API send them; the stream ends without a `[DONE]` event."""
        lines = [f'event: {name}\ndata: {json.dumps(data)}' for name, data in events]
        self.add(ScriptedResponse(events=lines, stall=stall, truncate=truncate))

    def add_delay(self, seconds: float, body: Any = None) -> None:
        """Queue a JSON response that is sent only after `seconds`."""
        self.add(ScriptedResponse(body=json.dumps(body or {}).encode(), delay=seconds))

    def bodies(self) -> list[Any]:
        """The JSON bodies of the received requests."""
        return [r.body for r in self.requests]

    def _next(self) -> ScriptedResponse:
        with self._lock:
            if not self._queue:
                return ScriptedResponse(status=500, body=b'{"error": {"message": "no scripted response left"}}')
            return self._queue.pop(0)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    @property
    def chat(self) -> ChatServer:
        return cast(_Server, self.server).chat

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output quiet."""

    def do_GET(self) -> None:
        chat = self.chat
        chat.requests.append(RecordedRequest('GET', self.path, {k.lower(): v for k, v in self.headers.items()}, None))
        data, content_type = chat.files.get(self.path, (b'not found', 'text/plain'))
        status = 200 if self.path in chat.files else 404
        self._send_body(ScriptedResponse(status=status, body=data, headers={'content-type': content_type}))

    def do_POST(self) -> None:
        length = int(self.headers.get('content-length') or 0)
        raw = self.rfile.read(length).decode()
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = raw
        headers = {k.lower(): v for k, v in self.headers.items()}
        chat = self.chat
        chat.requests.append(RecordedRequest('POST', self.path, headers, body))
        response = chat._next()
        if response.delay and chat.closing.wait(response.delay):
            return
        if response.events is not None:
            self._send_events(response)
        else:
            self._send_body(response)

    def _send_body(self, response: ScriptedResponse) -> None:
        self.send_response(response.status)
        headers = {'content-type': 'application/json', **response.headers}
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header('content-length', str(len(response.body)))
        self.end_headers()
        self.wfile.write(response.body)

    def _send_events(self, response: ScriptedResponse) -> None:
        self.send_response(response.status)
        self.send_header('content-type', 'text/event-stream')
        self.send_header('connection', 'close')
        if response.truncate:
            self.send_header('content-length', '100000')
        for name, value in response.headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.close_connection = True
        for index, event in enumerate(response.events or []):
            text = event if event.startswith('event: ') else f'data: {event}'
            self.wfile.write(f'{text}\n\n'.encode())
            self.wfile.flush()
            if index == 0 and response.stall and self.chat.closing.wait(response.stall):
                return


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    chat: ChatServer


@contextmanager
def chat_server() -> Iterator[ChatServer]:
    """Run a scripted Chat Completions server on a free port of 127.0.0.1 until the block ends.

    The server's `base_url` ends in `/v1`, as a client's base URL would.
    """
    server = _Server(('127.0.0.1', 0), _Handler)
    port = server.server_address[1]
    server.chat = ChatServer(f'http://127.0.0.1:{port}/v1')
    thread = threading.Thread(target=server.serve_forever, kwargs={'poll_interval': 0.05}, daemon=True)
    thread.start()
    try:
        yield server.chat
    finally:
        server.chat.closing.set()
        server.shutdown()
        server.server_close()
        thread.join()


def usage(prompt: int = 10, completion: int = 5, **details: Any) -> dict[str, Any]:
    """A `usage` object; `details` may hold `cached_tokens`, `reasoning_tokens` and the audio counts."""
    result: dict[str, Any] = {
        'prompt_tokens': prompt,
        'completion_tokens': completion,
        'total_tokens': prompt + completion,
    }
    prompt_details = {k: details[k] for k in ('cached_tokens', 'audio_tokens') if k in details}
    completion_keys = ('reasoning_tokens', 'accepted_prediction_tokens', 'rejected_prediction_tokens')
    completion_details = {k: details[k] for k in completion_keys if k in details}
    if 'output_audio_tokens' in details:
        completion_details['audio_tokens'] = details['output_audio_tokens']
    if prompt_details:
        result['prompt_tokens_details'] = prompt_details
    if completion_details:
        result['completion_tokens_details'] = completion_details
    return result


def tool_call(name: str, arguments: str, call_id: str) -> dict[str, Any]:
    """A tool call of an assistant message."""
    return {'id': call_id, 'type': 'function', 'function': {'name': name, 'arguments': arguments}}


def tool_call_delta(
    index: int, *, id: str | None = None, name: str | None = None, arguments: str | None = None
) -> dict[str, Any]:
    """A piece of a streamed tool call; the first piece of a call carries its id and name."""
    function = {k: v for k, v in (('name', name), ('arguments', arguments)) if v is not None}
    delta: dict[str, Any] = {'index': index, 'function': function}
    if id is not None:
        delta.update(id=id, type='function')
    return delta


def completion(
    content: str | None = None,
    *,
    tool_calls: list[dict[str, Any]] | None = None,
    finish_reason: str = 'stop',
    model: str = 'gpt-4o-2024-08-06',
    id: str = 'chatcmpl-1',
    created: int = 1700000000,
    usage: dict[str, Any] | None = None,
    **message: Any,
) -> dict[str, Any]:
    """A `chat.completion` body with one choice."""
    msg: dict[str, Any] = {'role': 'assistant', 'content': content, **message}
    if tool_calls is not None:
        msg['tool_calls'] = tool_calls
    body: dict[str, Any] = {
        'id': id,
        'object': 'chat.completion',
        'created': created,
        'model': model,
        'choices': [{'index': 0, 'message': msg, 'finish_reason': finish_reason, 'logprobs': None}],
    }
    if usage is not None:
        body['usage'] = usage
    return body


def chunk(
    content: str | None = None,
    *,
    tool_calls: list[dict[str, Any]] | None = None,
    finish_reason: str | None = None,
    usage: dict[str, Any] | None = None,
    choices: bool = True,
    model: str = 'gpt-4o-2024-08-06',
    id: str = 'chatcmpl-s1',
    created: int = 1700000000,
    **delta: Any,
) -> dict[str, Any]:
    """A `chat.completion.chunk` body; `choices=False` gives the final usage-only chunk."""
    body: dict[str, Any] = {'id': id, 'object': 'chat.completion.chunk', 'created': created, 'model': model}
    if choices:
        d: dict[str, Any] = dict(delta)
        if content is not None:
            d['content'] = content
        if tool_calls is not None:
            d['tool_calls'] = tool_calls
        body['choices'] = [{'index': 0, 'delta': d, 'finish_reason': finish_reason}]
    else:
        body['choices'] = []
    if usage is not None:
        body['usage'] = usage
    return body
