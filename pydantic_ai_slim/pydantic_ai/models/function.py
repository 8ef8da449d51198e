"""`FunctionModel`: a model whose responses come from a function you write, for tests and examples.

The function gets the conversation so far and an `AgentInfo` describing the request (tools, output
options, settings, instructions), and returns the `ModelResponse`, so a test can script exactly what the
"model" does at each step.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import KW_ONLY, dataclass, field
from typing import TypeAlias

from .. import _utils
from .._usage_estimate import estimate_usage
from ..messages import ModelMessage, ModelRequest, ModelResponse, RetryPromptPart, ToolReturnPart
from ..profiles import ModelProfile
from ..settings import ModelSettings
from ..tools import ToolDefinition
from . import Model, ModelRequestParameters

__all__ = (
    'AgentInfo',
    'DeltaThinkingCalls',
    'DeltaThinkingPart',
    'DeltaToolCall',
    'DeltaToolCalls',
    'FunctionDef',
    'FunctionModel',
    'StreamFunctionDef',
)

# A function can produce any output shape, so the model claims support for native structured output too.
_FUNCTION_PROFILE = ModelProfile(supports_json_schema_output=True, supports_json_object_output=True)


@dataclass(frozen=True, kw_only=True)
class AgentInfo:
    """What the agent asks of this request, passed to a `FunctionModel`'s function with the messages."""

    function_tools: list[ToolDefinition]
    """The function tools the model may call."""
    allow_text_output: bool
    """Whether plain text is an acceptable final response."""
    output_tools: list[ToolDefinition]
    """The output tools the model may call to give the final result."""
    model_settings: ModelSettings | None
    """The settings of the request, the model's own merged under the run's."""
    model_request_parameters: ModelRequestParameters
    """All the request parameters, as the model received them."""
    instructions: str | None
    """The instructions the model would be sent, including those for prompted output."""


@dataclass
class DeltaToolCall:
    """A piece of a tool call, yielded by a stream function."""

    name: str | None = None
    """Text to add to the tool name."""
    json_args: str | None = None
    """Text to add to the JSON arguments."""
    _: KW_ONLY
    tool_call_id: str | None = None
    """The id of the call, if the function wants to choose it."""


@dataclass(kw_only=True)
class DeltaThinkingPart:
    """A piece of a thinking part, yielded by a stream function."""

    content: str | None = None
    """Text to add to the thinking."""
    signature: str | None = None
    """A new signature for the thinking."""


DeltaToolCalls: TypeAlias = dict[int, DeltaToolCall]
"""Tool call pieces by the index of the call they belong to."""

DeltaThinkingCalls: TypeAlias = dict[int, DeltaThinkingPart]
"""Thinking pieces by the index of the thinking part they belong to."""

FunctionDef: TypeAlias = Callable[[list[ModelMessage], AgentInfo], ModelResponse | Awaitable[ModelResponse]]
"""A function answering a non-streamed request: it takes the messages and an `AgentInfo`."""

StreamFunctionDef: TypeAlias = Callable[
    [list[ModelMessage], AgentInfo], AsyncIterator[str | DeltaToolCalls | DeltaThinkingCalls]
]
"""A function answering a streamed request: it yields text, or tool call or thinking pieces by index."""


@dataclass(init=False)
class FunctionModel(Model):
    """A model whose responses come from a local function (or an async one).

    Sync functions run in a worker thread, so they may block. Responses get the model's name, and an
    estimated usage when the function left the usage empty.
    """

    function: FunctionDef | None
    """The function answering non-streamed requests."""
    stream_function: StreamFunctionDef | None
    """The function answering streamed requests."""
    _model_name: str = field(repr=False)
    _system: str = field(default='function', repr=False)

    def __init__(
        self,
        function: FunctionDef | None = None,
        *,
        stream_function: StreamFunctionDef | None = None,
        model_name: str | None = None,
        profile: ModelProfile | None = None,
        settings: ModelSettings | None = None,
    ) -> None:
        """Make a model from a function, a stream function, or both.

        Args:
            function: The function answering non-streamed requests.
            stream_function: The function answering streamed requests.
            model_name: The model's name; by default `function:{function name}:{stream function name}`.
            profile: What the model supports; by default it supports every output mode.
            settings: Default settings for the model's requests.

        Raises:
            TypeError: if neither function is given.
        """
        if function is None and stream_function is None:
            raise TypeError('Either `function` or `stream_function` must be provided')
        super().__init__(settings=settings)
        self.function = function
        self.stream_function = stream_function
        if model_name is None:
            # Like upstream, a callable without `__name__` (e.g. a partial) needs an explicit `model_name`.
            function_name = function.__name__ if function is not None else ''
            stream_name = stream_function.__name__ if stream_function is not None else ''
            model_name = f'function:{function_name}:{stream_name}'
        self._model_name = model_name
        self._system = 'function'
        self._profile = profile

    @property
    def model_name(self) -> str:
        """The model's name."""
        return self._model_name

    @property
    def system(self) -> str:
        """The provider's name: `'function'`."""
        return self._system

    @property
    def profile(self) -> ModelProfile:
        """The profile given to the model, or one that supports every output mode."""
        return self._profile or _FUNCTION_PROFILE

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        """Call the function with the messages and an `AgentInfo`, and return its response."""
        model_settings, model_request_parameters = self.prepare_request(model_settings, model_request_parameters)
        agent_info = AgentInfo(
            function_tools=model_request_parameters.function_tools,
            allow_text_output=model_request_parameters.allow_text_output,
            output_tools=model_request_parameters.output_tools,
            model_settings=model_settings,
            model_request_parameters=model_request_parameters,
            instructions=_instructions(messages, model_request_parameters, self.profile),
        )
        assert self.function is not None, 'FunctionModel must receive a `function` to support non-streamed requests'
        response = await _utils.call_maybe_async(self.function, messages, agent_info)
        assert isinstance(response, ModelResponse), response
        response.model_name = self._model_name
        if not response.usage.has_values():
            response.usage = estimate_usage([*messages, response])
        return response


def _instructions(
    messages: Sequence[ModelMessage], params: ModelRequestParameters, profile: ModelProfile
) -> str | None:
    """The instructions a real model would be sent: the conversation's, then those for prompted output."""
    instructions = _conversation_instructions(messages)
    prompted = _prompted_output_instructions(params, profile)
    if prompted is None:
        return instructions
    return '\n\n'.join(text for text in (instructions, prompted) if text)


def _conversation_instructions(messages: Sequence[ModelMessage]) -> str | None:
    requests = [message for message in messages if isinstance(message, ModelRequest)]
    if not requests:
        return None
    last = requests[-1]
    if last.instructions is not None:
        return last.instructions
    # A request that only carries tool results continues the previous request's turn, so its instructions
    # still apply.
    if len(requests) > 1 and all(isinstance(part, ToolReturnPart | RetryPromptPart) for part in last.parts):
        return requests[-2].instructions
    return None


def _prompted_output_instructions(params: ModelRequestParameters, profile: ModelProfile) -> str | None:
    # A template given with native output is honoured too, as upstream does; prompted output falls back to
    # the profile's template in case the parameters were not prepared.
    output_object = params.output_object
    template = params.prompted_output_template
    if template is None and params.output_mode == 'prompted':
        template = profile.prompted_output_template
    if output_object is None or not template or params.output_mode not in ('prompted', 'native'):
        return None
    if '{schema}' not in template:
        template = f'{template}\n\n{{schema}}'
    schema = dict(output_object.json_schema)
    if output_object.name:
        schema['title'] = output_object.name
    if output_object.description:
        schema['description'] = output_object.description
    return template.format(schema=json.dumps(schema))
