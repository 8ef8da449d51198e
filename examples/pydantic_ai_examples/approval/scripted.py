"""A scripted model for the demo: it plans each step from the tool results it has seen, like a real one would.

It is a `FunctionModel`, so it works offline and deterministically, but it is not a fixed script: every
response is derived from the conversation so far. It learns the PID from `list_ports`, the log path and
service from `ps`, notices when a SIGTERM only started a drain or when the service brought the process back,
and reacts to denials (a gentler option, or a question to the user) and to blocked calls (a narrower call).
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ModelResponsePart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

__all__ = (
    'PORT',
    'TASK',
    'Observation',
    'observations',
    'plan',
    'scripted_model',
)

PORT = 8080
"""The port the task is about."""
TASK = f'Find the process hogging port {PORT} and stop it.'
"""The demo's task."""

_STATE_CHANGING = ('kill_process', 'stop_service', 'restart_service', 'remove_path')


@dataclass(frozen=True)
class Observation:
    """A tool call the model made and what came back."""

    tool_name: str
    """The tool."""
    args: dict[str, Any]
    """The arguments the model gave."""
    content: Any
    """The tool's result; a string means the call did not run (denied or blocked), as the tools return dicts."""

    @property
    def ran(self) -> bool:
        """Whether the tool ran (it was not denied or blocked)."""
        return not isinstance(self.content, str)

    @property
    def blocked(self) -> bool:
        """Whether the policy blocked the call."""
        return isinstance(self.content, str) and self.content.startswith('Blocked')

    @property
    def result(self) -> dict[str, Any]:
        """The result as a dict (empty if the call did not run or returned a list)."""
        content: object = self.content
        return cast(dict[str, Any], content) if isinstance(content, dict) else {}


def observations(messages: Sequence[ModelMessage]) -> list[Observation]:
    """Every tool call of the conversation with its result, in order."""
    calls = {
        part.tool_call_id: part
        for message in messages
        if isinstance(message, ModelResponse)
        for part in message.parts
        if isinstance(part, ToolCallPart)
    }
    return [
        Observation(part.tool_name, calls[part.tool_call_id].args_as_dict(), part.content)
        for message in messages
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart) and part.tool_call_id in calls
    ]


@dataclass
class _Facts:
    """What the conversation has established so far."""

    seen: list[Observation]

    def last(self, tool_name: str, **args: Any) -> Observation | None:
        matches = [
            o for o in self.seen if o.tool_name == tool_name and all(o.args.get(k) == v for k, v in args.items())
        ]
        return matches[-1] if matches else None

    def index(self, observation: Observation | None) -> int:
        return -1 if observation is None else max(i for i, o in enumerate(self.seen) if o is observation)

    @property
    def holder(self) -> dict[str, Any] | None:
        ports = self.last('list_ports')
        entries = cast(list[dict[str, Any]], ports.content if ports else [])
        return next((entry for entry in entries if entry.get('port') == PORT), None)

    @property
    def pid(self) -> int:
        return int((self.holder or {}).get('pid', 0))

    @property
    def info(self) -> dict[str, Any]:
        ps = self.last('ps', pid=self.pid)
        return ps.result if ps else {}

    @property
    def service(self) -> str | None:
        return self.info.get('service')

    def changed_since_last_look(self) -> bool:
        # Only calls that can free the port are worth a new look; a drain or a file removal cannot.
        changes = [i for i, o in enumerate(self.seen) if o.ran and _may_free_port(o)]
        return bool(changes) and changes[-1] > self.index(self.last('list_ports'))


def _may_free_port(o: Observation) -> bool:
    return o.tool_name in ('stop_service', 'restart_service') or bool(o.result.get('exited'))


def _respond(text: str, *calls: ToolCallPart) -> ModelResponse:
    parts: list[ModelResponsePart] = [TextPart(text), *calls]
    return ModelResponse(parts=parts)


def _call(tool_name: str, **args: Any) -> ToolCallPart:
    return ToolCallPart(tool_name, args)


def _look(facts: _Facts) -> ModelResponse | None:
    if facts.last('list_ports') is None:
        return _respond(f"I'll check what is listening on port {PORT}.", _call('list_ports'))
    if facts.changed_since_last_look():
        return _respond(f'Let me check whether port {PORT} is free now.', _call('list_ports'))
    return None


def _done(facts: _Facts) -> ModelResponse | None:
    if facts.holder is not None:
        return None
    return _respond(f'Port {PORT} is free. {_story(facts)}')


def _inspect(facts: _Facts) -> ModelResponse | None:
    holder = facts.holder
    if holder is None or facts.last('ps', pid=facts.pid) is not None:
        return None
    earlier = [o for o in facts.seen if o.tool_name == 'ps']
    if earlier:
        text = f'Something is back on port {PORT}: PID {facts.pid} ({holder["process"]}). Let me see who started it.'
    else:
        text = f'Port {PORT} is held by PID {facts.pid} ({holder["process"]}). Let me see what it is.'
    return _respond(text, _call('ps', pid=facts.pid))


def _read_log(facts: _Facts) -> ModelResponse | None:
    info = facts.info
    match = re.search(r'--log (\S+)', str(info.get('command', '')))
    if match is None or facts.last('read_file', path=match.group(1)) is not None:
        return None
    text = (
        f'It is `{info["command"]}`, run by {info["user"]} and started by {facts.service}.service. '
        'Its log may say why it is still around.'
    )
    return _respond(text, _call('read_file', path=match.group(1)))


def _ask_user(facts: _Facts) -> ModelResponse | None:
    stop = facts.last('stop_service', name=facts.service)
    if stop is None or stop.ran:
        return None
    return _respond(
        f'I stopped short: stopping the service was not allowed ("{stop.content}"). PID {facts.pid} still holds '
        f'port {PORT}. {_story(facts)} How would you like me to proceed?'
    )


def _gentler(facts: _Facts) -> ModelResponse | None:
    kill = facts.last('kill_process', pid=facts.pid)
    if kill is None or kill.ran:
        return None
    if facts.service is None or facts.last('stop_service', name=facts.service) is not None:
        return _respond(f'I did not stop PID {facts.pid} ("{kill.content}"). How would you like me to proceed?')
    text = (
        f'Understood, I will not signal the process directly ("{kill.content}"). A gentler option is to let its '
        f'service manager stop {facts.service}.service cleanly:'
    )
    return _respond(text, _call('stop_service', name=facts.service))


def _respawned(facts: _Facts) -> ModelResponse | None:
    exited = [o for o in facts.seen if o.tool_name == 'kill_process' and o.result.get('exited')]
    if not exited or facts.service is None or facts.last('stop_service', name=facts.service) is not None:
        return None
    text = (
        f'PID {exited[-1].args["pid"]} did exit, but {facts.service}.service started it again as PID {facts.pid} '
        '(Restart=always). Stopping the service keeps the port free:'
    )
    return _respond(text, _call('stop_service', name=facts.service))


def _second_term(facts: _Facts) -> ModelResponse | None:
    kill = facts.last('kill_process', pid=facts.pid)
    if kill is None or kill.result.get('state') != 'draining connections':
        return None
    calls = [_call('kill_process', pid=facts.pid, signal='TERM')]
    text = 'It is draining its connections; its log says a second SIGTERM makes it exit now.'
    blocked = facts.last('remove_path', path='/var/run')
    if blocked is not None and blocked.blocked and facts.last('remove_path', path='/var/run/devserver.pid') is None:
        calls.append(_call('remove_path', path='/var/run/devserver.pid'))
        text += ' Removing /var/run was blocked, so I will remove only its stale pid file.'
    return _respond(text, *calls)


def _first_kill(facts: _Facts) -> ModelResponse | None:
    if facts.last('kill_process', pid=facts.pid) is not None:
        return None
    calls = [_call('kill_process', pid=facts.pid, signal='TERM')]
    text = 'The log shows requests stuck for ten minutes. I will ask it to stop with SIGTERM'
    if facts.last('remove_path') is None:
        calls.append(_call('remove_path', path='/var/run', recursive=True))
        text += ' and clear the stale runtime files under /var/run'
    return _respond(text + ':', *calls)


def _story(facts: _Facts) -> str:
    # Repeated identical calls (a second SIGTERM) are told once, with a count.
    done = Counter(_phrase(o) for o in facts.seen if o.tool_name in _STATE_CHANGING)
    told = [phrase if n == 1 else f'{phrase[:-1]} ({n} times).' for phrase, n in done.items()]
    return ' '.join(told) if told else 'I did not change anything.'


def _phrase(o: Observation) -> str:
    if o.ran:
        return {
            'kill_process': f'Sent SIG{o.args.get("signal", "TERM")} to PID {o.args.get("pid")}.',
            'stop_service': f'Stopped {o.args.get("name")}.service.',
            'restart_service': f'Restarted {o.args.get("name")}.service.',
            'remove_path': f'Removed {o.args.get("path")}.',
        }[o.tool_name]
    action = {
        'kill_process': f'SIG{o.args.get("signal", "TERM")} to PID {o.args.get("pid")}',
        'stop_service': f'Stopping {o.args.get("name")}.service',
        'restart_service': f'Restarting {o.args.get("name")}.service',
        'remove_path': f'Removing {o.args.get("path")}',
    }[o.tool_name]
    return f'{action}: not done ({o.content}).'


_RULES: tuple[Callable[[_Facts], ModelResponse | None], ...] = (
    _look,
    _done,
    _inspect,
    _read_log,
    _ask_user,
    _gentler,
    _respawned,
    _second_term,
    _first_kill,
)


def plan(messages: Sequence[ModelMessage]) -> ModelResponse:
    """The scripted model's next response: the first rule that applies to what it has seen."""
    facts = _Facts(observations(messages))
    for rule in _RULES:
        response = rule(facts)
        if response is not None:
            return response
    return _respond(f'I could not free port {PORT}. {_story(facts)} How would you like me to proceed?')


def scripted_model(delay: float = 0.0) -> FunctionModel:
    """The scripted model; `delay` seconds of "thinking" per response make the progress display visible."""

    async def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if delay:
            await asyncio.sleep(delay)
        return plan(messages)

    return FunctionModel(respond, model_name='scripted-sysadmin')
