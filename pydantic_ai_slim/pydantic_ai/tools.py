"""Tools: functions the model can call, their definitions, and the types of deferred tool calls."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import KW_ONLY, dataclass, field, replace
from typing import Annotated, Any, Concatenate, Generic, Literal, TypeAlias, cast

import pydantic
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from typing_extensions import ParamSpec, TypeVar

from . import _function_schema, _utils
from ._run_context import AgentDepsT, RunContext
from .builtin_tools import AbstractBuiltinTool
from .exceptions import ModelRetry
from .messages import RetryPromptPart, ToolCallPart, ToolReturn

__all__ = (
    'AgentDepsT',
    'BuiltinToolFunc',
    'DeferredToolApprovalResult',
    'DeferredToolCallResult',
    'DeferredToolHandler',
    'DeferredToolRequests',
    'DeferredToolResult',
    'DeferredToolResults',
    'DocstringFormat',
    'GenerateToolJsonSchema',
    'ObjectJsonSchema',
    'RunContext',
    'SystemPromptFunc',
    'Tool',
    'ToolApproved',
    'ToolDefinition',
    'ToolDenied',
    'ToolFuncContext',
    'ToolFuncEither',
    'ToolFuncPlain',
    'ToolKind',
    'ToolParams',
    'ToolPrepareFunc',
    'ToolsPrepareFunc',
)

ToolParams = ParamSpec('ToolParams', default=...)
"""The parameters of a tool function."""

ObjectJsonSchema: TypeAlias = dict[str, Any]
"""A JSON schema of an object."""

SystemPromptFunc: TypeAlias = (
    Callable[[RunContext[AgentDepsT]], str]
    | Callable[[RunContext[AgentDepsT]], Awaitable[str]]
    | Callable[[], str]
    | Callable[[], Awaitable[str]]
)
"""A function that makes a system prompt or instructions, with or without the run context."""

ToolFuncContext: TypeAlias = Callable[Concatenate[RunContext[AgentDepsT], ToolParams], Any]
"""A tool function that takes the run context as its first argument."""
ToolFuncPlain: TypeAlias = Callable[ToolParams, Any]
"""A tool function that does not take the run context."""
ToolFuncEither: TypeAlias = ToolFuncContext[AgentDepsT, ToolParams] | ToolFuncPlain[ToolParams]
"""A tool function, with or without the run context."""

ToolPrepareFunc: TypeAlias = Callable[[RunContext[AgentDepsT], 'ToolDefinition'], Awaitable['ToolDefinition | None']]
"""Called before each model request to change a tool's definition, or return `None` to hide the tool."""
ToolsPrepareFunc: TypeAlias = Callable[
    [RunContext[AgentDepsT], list['ToolDefinition']], Awaitable['list[ToolDefinition] | None']
]
"""Called before each model request to change the list of all tool definitions."""

BuiltinToolFunc: TypeAlias = Callable[
    [RunContext[AgentDepsT]], Awaitable[AbstractBuiltinTool | None] | AbstractBuiltinTool | None
]
"""A function that makes a builtin tool for the run (or `None` to leave it out), called before each request."""

DocstringFormat: TypeAlias = Literal['google', 'numpy', 'sphinx', 'auto']
"""How to read parameter descriptions from a docstring; `'auto'` guesses from its style."""

ToolKind: TypeAlias = Literal['function', 'output', 'external', 'unapproved']
"""What a tool is: a function the agent runs, an output tool, a tool run outside the agent, or one that needs
approval before it runs."""

ToolAgentDepsT = TypeVar('ToolAgentDepsT', default=object, contravariant=True)


class GenerateToolJsonSchema(GenerateJsonSchema):
    """The JSON schema generator for tool parameters: object properties carry no `title`.

    Titles made from field names only repeat the property's key, so they are left out to keep the schema short.
    Models, dataclasses and enums in `$defs` keep their class titles.
    """

    def _named_required_fields_schema(self, named_required_fields: Any) -> JsonSchemaValue:
        json_schema = super()._named_required_fields_schema(named_required_fields)
        for prop in json_schema.get('properties', {}).values():
            prop.pop('title', None)
        return json_schema


@dataclass(repr=False, kw_only=True)
class ToolDefinition:
    """What the model is told about a tool: its name, description and parameter schema."""

    name: str
    """The tool's name."""
    parameters_json_schema: ObjectJsonSchema = field(default_factory=lambda: {'type': 'object', 'properties': {}})
    """The JSON schema of the tool's parameters."""
    description: str | None = None
    """What the tool does, for the model."""
    outer_typed_dict_key: str | None = None
    """For output tools: the key the output value is wrapped under, if it is not an object."""
    strict: bool | None = None
    """Whether to ask the model for strict schema adherence, where supported."""
    sequential: bool = False
    """Whether calls of this tool must run one at a time, not concurrently with other calls."""
    kind: ToolKind = 'function'
    """What the tool is; see `ToolKind`."""
    metadata: dict[str, Any] | None = None
    """Data for the application, not sent to the model."""
    timeout: float | None = None
    """Seconds a call may take before it is retried with a timeout message."""

    @property
    def defer(self) -> bool:
        """Whether calls of this tool are deferred: run outside the agent, or after approval."""
        return self.kind in ('external', 'unapproved')

    __repr__ = _utils.dataclasses_no_defaults_repr


@dataclass(repr=False, init=False)
class Tool(Generic[ToolAgentDepsT]):
    """A function the model can call, with its settings."""

    function: ToolFuncEither[ToolAgentDepsT]
    """The function."""
    takes_ctx: bool
    """Whether the function takes the run context as its first argument."""
    max_retries: int | None
    """How many retries the tool is allowed; `None` uses the agent's or toolset's."""
    name: str
    """The tool's name."""
    description: str | None
    """What the tool does, for the model."""
    prepare: ToolPrepareFunc[ToolAgentDepsT] | None
    """Called before each request to change or hide the tool's definition."""
    docstring_format: DocstringFormat
    """How to read the docstring."""
    require_parameter_descriptions: bool
    """Whether a parameter without a description is an error."""
    strict: bool | None
    """Whether to ask for strict schema adherence."""
    sequential: bool
    """Whether calls must run one at a time."""
    requires_approval: bool
    """Whether each call needs approval before it runs."""
    metadata: dict[str, Any] | None
    """Data for the application, not sent to the model."""
    timeout: float | None
    """Seconds a call may take."""
    function_schema: _function_schema.FunctionSchema
    """The schema and validator made from the function's signature."""

    def __init__(
        self,
        function: ToolFuncEither[ToolAgentDepsT],
        *,
        takes_ctx: bool | None = None,
        max_retries: int | None = None,
        name: str | None = None,
        description: str | None = None,
        prepare: ToolPrepareFunc[ToolAgentDepsT] | None = None,
        docstring_format: DocstringFormat = 'auto',
        require_parameter_descriptions: bool = False,
        schema_generator: type[GenerateJsonSchema] = GenerateToolJsonSchema,
        strict: bool | None = None,
        sequential: bool = False,
        requires_approval: bool = False,
        metadata: dict[str, Any] | None = None,
        timeout: float | None = None,
        function_schema: _function_schema.FunctionSchema | None = None,
    ):
        """Make a tool from a function; its parameters and docstring become the schema the model sees."""
        self.function_schema = function_schema or _function_schema.function_schema(
            function,
            schema_generator,
            takes_ctx=takes_ctx,
            docstring_format=docstring_format,
            require_parameter_descriptions=require_parameter_descriptions,
        )
        self.function = function
        self.takes_ctx = self.function_schema.takes_ctx
        self.max_retries = max_retries
        self.name = name or function.__name__
        self.description = description or self.function_schema.description
        self.prepare = prepare
        self.docstring_format = docstring_format
        self.require_parameter_descriptions = require_parameter_descriptions
        self.strict = strict
        self.sequential = sequential
        self.requires_approval = requires_approval
        self.metadata = metadata
        self.timeout = timeout

    @classmethod
    def from_schema(
        cls,
        function: Callable[..., Any],
        name: str,
        description: str | None,
        json_schema: JsonSchemaValue,
        takes_ctx: bool = False,
        sequential: bool = False,
    ) -> Tool[Any]:
        """Make a tool from a function taking `**kwargs` and a hand-written JSON schema (no validation)."""
        schema = _function_schema.FunctionSchema(
            function=function,
            description=description,
            validator=_function_schema.passthrough_validator(),
            json_schema=json_schema,
            takes_ctx=takes_ctx,
            is_async=_utils.is_async_callable(function),
        )
        return cls(
            function,
            takes_ctx=takes_ctx,
            name=name,
            description=description,
            function_schema=schema,
            sequential=sequential,
        )

    @property
    def tool_def(self) -> ToolDefinition:
        """The definition sent to the model, before `prepare`."""
        return ToolDefinition(
            name=self.name,
            description=self.description,
            parameters_json_schema=self.function_schema.json_schema,
            strict=self.strict,
            sequential=self.sequential,
            metadata=self.metadata,
            timeout=self.timeout,
            kind='unapproved' if self.requires_approval else 'function',
        )

    async def prepare_tool_def(self, ctx: RunContext[ToolAgentDepsT]) -> ToolDefinition | None:
        """The definition for this step: `tool_def` passed through `prepare`, if set.

        A tool that requires approval is of kind `'unapproved'` unless `ctx` says the call was approved.
        """
        base = self.tool_def
        if self.requires_approval and ctx.tool_call_approved:
            base = replace(base, kind='function')
        if self.prepare is None:
            return base
        return await self.prepare(ctx, base)

    __repr__ = _utils.dataclasses_no_defaults_repr


# Deferred tool calls: what a run hands out when it cannot run some calls, and what comes back.


@dataclass(kw_only=True)
class DeferredToolRequests:
    """Tool calls the run could not complete: calls to run elsewhere and calls that need approval.

    Returned as the run's output (when it is among the output types), or given to a deferred tool handler.
    Calls that raised come first, in call order, then those of tools deferred by definition. The nested calls of
    a tool that raised `CallDeferred(deferred_tool_requests=...)` are listed in its place, under composite ids
    `'{parent_id}::{child_id}'`; answer them by those ids.
    """

    calls: list[ToolCallPart] = field(default_factory=list[ToolCallPart])
    """Calls whose results are produced outside the agent."""
    approvals: list[ToolCallPart] = field(default_factory=list[ToolCallPart])
    """Calls that need approval before they run."""
    metadata: dict[str, dict[str, Any]] = field(default_factory=dict[str, dict[str, Any]])
    """Metadata by tool call id, from `ApprovalRequired(metadata=...)` or `CallDeferred(metadata=...)`."""
    context: dict[str, Any] = field(default_factory=dict[str, Any])
    """Opaque state by tool call id, from `ApprovalRequired(context=...)` or `CallDeferred(context=...)`.

    Copy it unchanged into `DeferredToolResults.context`: each tool gets its own entry back as
    `ctx.tool_call_context` when it is called again.
    """


@dataclass(kw_only=True)
class ToolApproved:
    """Approve a tool call, optionally with different arguments."""

    override_args: dict[str, Any] | None = None
    """Arguments to use instead of the model's."""
    kind: Literal['tool-approved'] = 'tool-approved'
    """Type discriminator."""


@dataclass
class ToolDenied:
    """Deny a tool call; the model is shown the message as the tool's result."""

    message: str = 'The tool call was denied.'
    """What the model is told."""
    _: KW_ONLY
    kind: Literal['tool-denied'] = 'tool-denied'
    """Type discriminator."""


def _deferred_result_discriminator(value: Any) -> str | None:
    # A `RetryPromptPart` is tagged by `part_kind`, the other results by `kind`; anything else is a plain value.
    if isinstance(value, dict):
        raw = cast(dict[str, Any], value)
        kind = raw.get('part_kind') if raw.get('part_kind') == 'retry-prompt' else raw.get('kind')
        return kind if isinstance(kind, str) else 'unknown'
    if isinstance(value, ModelRetry):
        return 'model-retry'
    if isinstance(value, RetryPromptPart):
        return 'retry-prompt'
    kind = getattr(value, 'kind', None)
    return kind if isinstance(kind, str) else 'unknown'


DeferredToolApprovalResult: TypeAlias = Annotated[ToolApproved | ToolDenied, pydantic.Discriminator('kind')]
"""The answer to an approval: approved or denied."""

DeferredToolCallResult: TypeAlias = Annotated[
    Annotated[ToolReturn, pydantic.Tag('tool-return')]
    | Annotated[ModelRetry, pydantic.Tag('model-retry')]
    | Annotated[RetryPromptPart, pydantic.Tag('retry-prompt')],
    pydantic.Discriminator(_deferred_result_discriminator),
]
"""The result of an external call: a tool return, or a retry for the model."""

DeferredToolResult: TypeAlias = DeferredToolApprovalResult | DeferredToolCallResult
"""Any answer to a deferred call."""


@dataclass(kw_only=True)
class DeferredToolResults:
    """Answers to the calls of a `DeferredToolRequests`, by tool call id.

    Pass them to a new run to resume, or return them from a deferred tool handler within the run.
    """

    calls: dict[str, DeferredToolCallResult | Any] = field(default_factory=dict[str, Any])
    """Results of external calls: a value, `ToolReturn`, `ModelRetry` or `RetryPromptPart`."""
    approvals: dict[str, bool | DeferredToolApprovalResult] = field(
        default_factory=dict[str, 'bool | DeferredToolApprovalResult']
    )
    """Answers to approvals: `True`/`ToolApproved` or `False`/`ToolDenied`."""
    metadata: dict[str, dict[str, Any]] = field(default_factory=dict[str, dict[str, Any]])
    """Metadata by tool call id, given to the approved tool as `ctx.tool_call_metadata`."""
    context: dict[str, Any] = field(default_factory=dict[str, Any])
    """The `DeferredToolRequests.context` entries, given back unchanged; each tool called again gets its own
    entry as `ctx.tool_call_context`."""


DeferredToolHandler: TypeAlias = Callable[
    [RunContext[AgentDepsT], DeferredToolRequests], DeferredToolResults | Awaitable[DeferredToolResults]
]
"""Resolves deferred tool calls within the run: `Agent(deferred_tool_handler=...)` or `run(deferred_tool_handler=...)`.

It is called once per model response with deferred calls, after the response's other tools ran and before any
deferred call runs, with all of them; it must answer every one. A sync handler runs in a worker thread (so it may
block, e.g. on `input()`), an async one is awaited. What it raises ends the run.
"""
