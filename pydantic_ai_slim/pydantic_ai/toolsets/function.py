"""`FunctionToolset`: tools made from Python functions."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, overload

import anyio
from pydantic.json_schema import GenerateJsonSchema

from .._run_context import AgentDepsT, RunContext, evolve
from ..exceptions import ModelRetry, UserError
from ..tools import (
    DocstringFormat,
    GenerateToolJsonSchema,
    Tool,
    ToolFuncEither,
    ToolParams,
    ToolPrepareFunc,
)
from .abstract import AbstractToolset, ToolsetTool

__all__ = ('FunctionToolset',)


@dataclass(kw_only=True)
class FunctionToolsetTool(ToolsetTool[AgentDepsT]):
    """A `ToolsetTool` that remembers the `Tool` it was made from."""

    tool: Tool[AgentDepsT]
    """The tool."""


class FunctionToolset(AbstractToolset[AgentDepsT]):
    """A toolset of Python functions; their signatures and docstrings become the tools' schemas.

    The keyword arguments set defaults for the tools added to it; a tool's own settings win.
    """

    tools: dict[str, Tool[Any]]
    """The tools, by name."""
    max_retries: int
    """The default number of retries of the tools."""

    def __init__(
        self,
        tools: Sequence[Tool[AgentDepsT] | ToolFuncEither[AgentDepsT, ...]] = [],
        *,
        max_retries: int = 1,
        timeout: float | None = None,
        docstring_format: DocstringFormat = 'auto',
        require_parameter_descriptions: bool = False,
        schema_generator: type[GenerateJsonSchema] = GenerateToolJsonSchema,
        strict: bool | None = None,
        sequential: bool = False,
        requires_approval: bool = False,
        metadata: dict[str, Any] | None = None,
        id: str | None = None,
    ):
        """Make a toolset from tools or functions."""
        self.max_retries = max_retries
        self.timeout = timeout
        self.docstring_format: DocstringFormat = docstring_format
        self.require_parameter_descriptions = require_parameter_descriptions
        self.schema_generator = schema_generator
        self.strict = strict
        self.sequential = sequential
        self.requires_approval = requires_approval
        self.metadata = metadata
        self._id = id
        self.tools = {}
        for tool in tools:
            if isinstance(tool, Tool):
                self.add_tool(tool)  # pyright: ignore[reportUnknownArgumentType] -- Tool's deps type is erased here
            else:
                self.add_function(tool)

    @property
    def id(self) -> str | None:
        """The id given to the toolset, if any."""
        return self._id

    @overload
    def tool(self, func: ToolFuncEither[AgentDepsT, ToolParams], /) -> ToolFuncEither[AgentDepsT, ToolParams]: ...

    @overload
    def tool(
        self,
        /,
        *,
        name: str | None = None,
        description: str | None = None,
        retries: int | None = None,
        prepare: ToolPrepareFunc[AgentDepsT] | None = None,
        docstring_format: DocstringFormat | None = None,
        require_parameter_descriptions: bool | None = None,
        schema_generator: type[GenerateJsonSchema] | None = None,
        strict: bool | None = None,
        sequential: bool | None = None,
        requires_approval: bool | None = None,
        metadata: dict[str, Any] | None = None,
        timeout: float | None = None,
    ) -> Callable[[ToolFuncEither[AgentDepsT, ToolParams]], ToolFuncEither[AgentDepsT, ToolParams]]: ...

    def tool(
        self,
        func: ToolFuncEither[AgentDepsT, ToolParams] | None = None,
        /,
        *,
        name: str | None = None,
        description: str | None = None,
        retries: int | None = None,
        prepare: ToolPrepareFunc[AgentDepsT] | None = None,
        docstring_format: DocstringFormat | None = None,
        require_parameter_descriptions: bool | None = None,
        schema_generator: type[GenerateJsonSchema] | None = None,
        strict: bool | None = None,
        sequential: bool | None = None,
        requires_approval: bool | None = None,
        metadata: dict[str, Any] | None = None,
        timeout: float | None = None,
    ) -> Any:
        """Register a function as a tool; use bare (`@toolset.tool`) or with arguments (`@toolset.tool(...)`).

        Whether the function takes the run context is read from its first parameter's annotation.
        """

        def register(func_: ToolFuncEither[AgentDepsT, ToolParams]) -> ToolFuncEither[AgentDepsT, ToolParams]:
            self.add_function(
                func_,
                None,
                name=name,
                description=description,
                retries=retries,
                prepare=prepare,
                docstring_format=docstring_format,
                require_parameter_descriptions=require_parameter_descriptions,
                schema_generator=schema_generator,
                strict=strict,
                sequential=sequential,
                requires_approval=requires_approval,
                metadata=metadata,
                timeout=timeout,
            )
            return func_

        return register if func is None else register(func)

    def add_function(
        self,
        func: ToolFuncEither[AgentDepsT, ToolParams],
        takes_ctx: bool | None = None,
        name: str | None = None,
        description: str | None = None,
        retries: int | None = None,
        prepare: ToolPrepareFunc[AgentDepsT] | None = None,
        docstring_format: DocstringFormat | None = None,
        require_parameter_descriptions: bool | None = None,
        schema_generator: type[GenerateJsonSchema] | None = None,
        strict: bool | None = None,
        sequential: bool | None = None,
        requires_approval: bool | None = None,
        metadata: dict[str, Any] | None = None,
        timeout: float | None = None,
    ) -> None:
        """Add a function as a tool; unset arguments take the toolset's defaults."""
        tool = Tool[AgentDepsT](
            func,
            takes_ctx=takes_ctx,
            name=name,
            description=description,
            max_retries=retries,
            prepare=prepare,
            docstring_format=self.docstring_format if docstring_format is None else docstring_format,
            require_parameter_descriptions=self.require_parameter_descriptions
            if require_parameter_descriptions is None
            else require_parameter_descriptions,
            schema_generator=schema_generator or self.schema_generator,
            strict=self.strict if strict is None else strict,
            sequential=self.sequential if sequential is None else sequential,
            requires_approval=self.requires_approval if requires_approval is None else requires_approval,
            metadata=metadata,
            timeout=timeout,
        )
        self.add_tool(tool)

    def add_tool(self, tool: Tool[AgentDepsT]) -> None:
        """Add a `Tool`; its name must be new to the toolset."""
        if tool.name in self.tools:
            raise UserError(f'Tool name conflicts with existing tool: {tool.name!r}')
        if tool.max_retries is None:
            # As upstream, the tool itself takes the toolset's limit (the agent's `retries`).
            tool.max_retries = self.max_retries
        if self.metadata is not None:
            tool = replace(tool, metadata={**self.metadata, **(tool.metadata or {})})
        self.tools[tool.name] = tool

    async def get_tools(self, ctx: RunContext[AgentDepsT]) -> dict[str, ToolsetTool[AgentDepsT]]:
        """The tools whose `prepare` (if any) keeps them for this step."""
        tools: dict[str, ToolsetTool[AgentDepsT]] = {}
        for original_name, tool in self.tools.items():
            max_retries = tool.max_retries if tool.max_retries is not None else self.max_retries
            if tool.prepare is None and type(tool).prepare_tool_def is Tool.prepare_tool_def:
                # Nothing reads the tool's own context: spare making one per tool per step.
                tool_ctx = ctx
            else:
                tool_ctx = evolve(
                    ctx, tool_name=original_name, retry=ctx.retries.get(original_name, 0), max_retries=max_retries
                )
            tool_def = await tool.prepare_tool_def(tool_ctx)
            if tool_def is None:
                continue
            if tool_def.name in tools:
                raise UserError(f'Renaming tool {original_name!r} to {tool_def.name!r} conflicts with existing tool.')
            if tool_def.timeout is None and self.timeout is not None:
                tool_def = replace(tool_def, timeout=self.timeout)
            tools[tool_def.name] = FunctionToolsetTool(
                toolset=self,
                tool_def=tool_def,
                max_retries=max_retries,
                args_validator=tool.function_schema.validator,
                tool=tool,
            )
        return tools

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[AgentDepsT], tool: ToolsetTool[AgentDepsT]
    ) -> Any:
        """Call the tool's function with validated arguments, within its timeout if it has one."""
        assert isinstance(tool, FunctionToolsetTool)
        schema = tool.tool.function_schema
        timeout = tool.tool_def.timeout
        if timeout is None:
            return await schema.call(tool_args, ctx)
        try:
            with anyio.fail_after(timeout):
                return await schema.call(tool_args, ctx)
        except TimeoutError:
            raise ModelRetry(f'Timed out after {timeout} seconds.') from None


# Used by the agent module only, which pyright does not see from here.
class _AgentFunctionToolset(FunctionToolset[AgentDepsT]):  # pyright: ignore[reportUnusedClass]
    """The function tools an agent was given (`tools=`, `@agent.tool`): named 'the agent' in error messages."""

    @property
    def label(self) -> str:
        """'the agent', as upstream names it in tool-name conflict errors."""
        return 'the agent'
