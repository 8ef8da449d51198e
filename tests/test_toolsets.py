from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Self

import pytest
from inline_snapshot import snapshot
from pydantic_ai.exceptions import ApprovalRequired, UserError
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models import Model, ModelRequestParameters
from pydantic_ai.settings import ModelSettings
from pydantic_ai.tools import RunContext, Tool, ToolDefinition
from pydantic_ai.toolsets import (
    AbstractToolset,
    ApprovalRequiredToolset,
    CombinedToolset,
    DeferredToolset,  # pyright: ignore[reportDeprecated] -- the deprecated alias is under test
    ExternalToolset,
    FilteredToolset,
    FunctionToolset,
    PrefixedToolset,
    PreparedToolset,
    RenamedToolset,
    ToolsetTool,
    WrapperToolset,
)
from pydantic_ai.toolsets._dynamic import DynamicToolset
from pydantic_ai.usage import RunUsage

pytestmark = pytest.mark.anyio


class StubModel(Model):
    """Only here to fill `RunContext.model`; toolsets never send requests."""

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        raise NotImplementedError

    @property
    def model_name(self) -> str:
        return 'stub'

    @property
    def system(self) -> str:
        return 'stub'


def make_ctx(**kwargs: Any) -> RunContext[None]:
    return RunContext(deps=None, model=StubModel(), usage=RunUsage(), **kwargs)


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def whoami(ctx: RunContext[None]) -> str:
    """Say which tool name the call arrived under."""
    return f'called as {ctx.tool_name}'


def shout(text: str) -> str:
    """Shout the text."""
    return text.upper()


def math_toolset() -> FunctionToolset[None]:
    return FunctionToolset([add, whoami], id='math')


async def call(
    toolset: AbstractToolset[None], name: str, args: dict[str, Any], ctx: RunContext[None] | None = None
) -> Any:
    """Call a tool the way the agent does: list the tools, validate the arguments, call through the toolset."""
    ctx = replace(ctx or make_ctx(), tool_name=name)
    tool = (await toolset.get_tools(ctx))[name]
    return await toolset.call_tool(name, tool.args_validator.validate_python(args), ctx, tool)


async def tool_names(toolset: AbstractToolset[None], ctx: RunContext[None] | None = None) -> list[str]:
    return list(await toolset.get_tools(ctx or make_ctx()))


@dataclass
class Recorder(WrapperToolset[None]):
    """Records when it is entered and left."""

    events: list[str] = field(default_factory=list[str])

    async def __aenter__(self) -> Self:
        self.events.append(f'enter {self.wrapped.label}')
        return await super().__aenter__()

    async def __aexit__(self, *args: Any) -> bool | None:
        self.events.append(f'exit {self.wrapped.label}')
        return await super().__aexit__(*args)


@dataclass
class FailsToEnter(WrapperToolset[None]):
    async def __aenter__(self) -> Self:
        raise RuntimeError('cannot connect')


# CombinedToolset


async def test_combined_lists_tools_of_all_members_in_order():
    combined = CombinedToolset([math_toolset(), FunctionToolset([shout])])
    tools = await combined.get_tools(make_ctx())
    assert {name: tool.tool_def.description for name, tool in tools.items()} == snapshot(
        {'add': 'Add two numbers.', 'whoami': 'Say which tool name the call arrived under.', 'shout': 'Shout the text.'}
    )
    assert combined.label == snapshot("CombinedToolset(FunctionToolset 'math', FunctionToolset)")
    assert combined.id is None


async def test_combined_tool_keeps_the_owning_toolset_and_settings():
    math = math_toolset()
    tool = (await CombinedToolset([math]).get_tools(make_ctx()))['add']
    original = (await math.get_tools(make_ctx()))['add']
    assert tool.toolset is math
    assert (tool.tool_def, tool.max_retries, tool.args_validator) == (
        original.tool_def,
        original.max_retries,
        original.args_validator,
    )


async def test_combined_routes_calls_to_the_owner():
    combined = CombinedToolset([math_toolset(), FunctionToolset([shout])])
    assert await call(combined, 'add', {'a': 1, 'b': 2}) == 3
    assert await call(combined, 'shout', {'text': 'hi'}) == 'HI'


async def test_combined_empty():
    combined = CombinedToolset[None]([])
    assert await combined.get_tools(make_ctx()) == {}
    assert combined.label == 'CombinedToolset()'


async def test_combined_name_conflict():
    combined = CombinedToolset([math_toolset(), FunctionToolset([add])])
    with pytest.raises(
        UserError,
        match=r"^FunctionToolset defines a tool whose name conflicts with existing tool from FunctionToolset 'math': "
        r"'add'\. Rename the tool or wrap the toolset in a `PrefixedToolset` to avoid name conflicts\.$",
    ):
        await combined.get_tools(make_ctx())


async def test_combined_name_conflict_uses_hint_of_the_member_and_label_of_the_tool_owner():
    combined = CombinedToolset([FunctionToolset([Tool(shout, name='math_add')]), math_toolset().prefixed('math')])
    with pytest.raises(
        UserError,
        match=r"^PrefixedToolset\(FunctionToolset 'math'\) defines a tool whose name conflicts with existing tool from "
        r"FunctionToolset: 'math_add'\. Change the `prefix` attribute to avoid name conflicts\.$",
    ):
        await combined.get_tools(make_ctx())

    # A filter around the prefixed toolset hides its hint, but the tool still names the prefixed toolset.
    combined = CombinedToolset(
        [
            FunctionToolset([Tool(shout, name='math_add')]),
            math_toolset().prefixed('math').filtered(lambda ctx, td: True),
        ]
    )
    with pytest.raises(UserError, match=r"^PrefixedToolset\(FunctionToolset 'math'\) defines .* Rename the tool or"):
        await combined.get_tools(make_ctx())


async def test_combined_name_conflict_in_nested_combination():
    combined = CombinedToolset([FunctionToolset([add]), CombinedToolset([math_toolset()])])
    with pytest.raises(
        UserError, match=r"^FunctionToolset 'math' defines a tool .* existing tool from FunctionToolset:"
    ):
        await combined.get_tools(make_ctx())


async def test_combined_call_needs_a_tool_from_its_own_listing():
    math = math_toolset()
    tool = (await math.get_tools(make_ctx()))['add']
    with pytest.raises(AssertionError):
        await CombinedToolset([math]).call_tool('add', {'a': 1, 'b': 2}, make_ctx(), tool)


async def test_combined_enters_members_once_while_entered():
    events: list[str] = []
    combined = CombinedToolset([Recorder(math_toolset(), events), Recorder(FunctionToolset([shout]), events)])
    async with combined as entered:
        assert entered is combined
        async with combined:
            assert combined._entered_count == 2
        assert events == snapshot(["enter FunctionToolset 'math'", 'enter FunctionToolset'])
    assert events == snapshot(
        ["enter FunctionToolset 'math'", 'enter FunctionToolset', 'exit FunctionToolset', "exit FunctionToolset 'math'"]
    )
    assert (combined._entered_count, combined._exit_stack) == (0, None)

    # It can be entered again after it was left.
    async with combined:
        pass
    assert len(events) == 8


async def test_combined_exit_without_enter():
    combined = CombinedToolset([math_toolset()])
    assert await combined.__aexit__(None, None, None) is None
    assert combined._entered_count == -1


async def test_combined_leaves_entered_members_when_one_fails_to_enter():
    events: list[str] = []
    combined = CombinedToolset([Recorder(math_toolset(), events), FailsToEnter(FunctionToolset([shout]))])
    with pytest.raises(RuntimeError, match=r'^cannot connect$'):
        async with combined:
            pass  # pragma: no cover
    assert events == snapshot(["enter FunctionToolset 'math'", "exit FunctionToolset 'math'"])
    assert (combined._entered_count, combined._exit_stack) == (0, None)


async def test_combined_apply_and_visit_and_replace():
    math, text = math_toolset(), FunctionToolset[None]([shout])
    combined = CombinedToolset([math, CombinedToolset([text])])

    visited: list[AbstractToolset[None]] = []
    combined.apply(visited.append)
    assert visited == [math, text]

    replaced = combined.visit_and_replace(lambda toolset: toolset.prefixed('p'))
    assert replaced == CombinedToolset([PrefixedToolset(math, 'p'), CombinedToolset([PrefixedToolset(text, 'p')])])
    assert combined == CombinedToolset([math, CombinedToolset([text])])
    assert await tool_names(replaced) == ['p_add', 'p_whoami', 'p_shout']


# WrapperToolset


async def test_wrapper_delegates_everything():
    events: list[str] = []
    math = math_toolset()
    wrapper = WrapperToolset(Recorder(math, events))
    assert (wrapper.label, wrapper.id) == ("WrapperToolset(Recorder(FunctionToolset 'math'))", None)

    async with wrapper as entered:
        assert entered is wrapper
        assert await tool_names(wrapper) == ['add', 'whoami']
        assert await call(wrapper, 'add', {'a': 2, 'b': 3}) == 5
    assert events == snapshot(["enter FunctionToolset 'math'", "exit FunctionToolset 'math'"])

    tools = await wrapper.get_tools(make_ctx())
    assert tools['add'].toolset is math

    visited: list[AbstractToolset[None]] = []
    wrapper.apply(visited.append)
    assert visited == [math]
    assert wrapper.visit_and_replace(lambda toolset: toolset.prefixed('p')) == WrapperToolset(
        Recorder(PrefixedToolset(math, 'p'), events)
    )


async def test_wrapper_passes_the_exit_result_on():
    @dataclass
    class SwallowsErrors(WrapperToolset[None]):
        async def __aexit__(self, *args: Any) -> bool | None:
            return True

    wrapper = WrapperToolset(SwallowsErrors(math_toolset()))
    async with wrapper:
        raise ValueError('swallowed')


# PrefixedToolset


async def test_prefixed_names_and_calls():
    math = math_toolset()
    prefixed = math.prefixed('calc')
    assert prefixed == PrefixedToolset(math, 'calc')
    assert prefixed.label == snapshot("PrefixedToolset(FunctionToolset 'math')")
    assert prefixed.tool_name_conflict_hint == snapshot('Change the `prefix` attribute to avoid name conflicts.')

    tools = await prefixed.get_tools(make_ctx())
    assert {name: (tool.tool_def.name, tool.toolset) for name, tool in tools.items()} == {
        'calc_add': ('calc_add', prefixed),
        'calc_whoami': ('calc_whoami', prefixed),
    }
    assert await call(prefixed, 'calc_add', {'a': 1, 'b': 1}) == 2
    # The wrapped tool runs under its own name.
    assert await call(prefixed, 'calc_whoami', {}) == 'called as whoami'


async def test_prefixed_call_passes_the_original_name_down():
    seen: list[tuple[str, str | None, str]] = []

    @dataclass
    class Spy(WrapperToolset[None]):
        async def call_tool(
            self, name: str, tool_args: dict[str, Any], ctx: RunContext[None], tool: ToolsetTool[None]
        ) -> Any:
            seen.append((name, ctx.tool_name, tool.tool_def.name))
            return await super().call_tool(name, tool_args, ctx, tool)

    prefixed = Spy(math_toolset()).prefixed('calc')
    assert await call(prefixed, 'calc_add', {'a': 1, 'b': 2}) == 3
    assert seen == [('add', 'add', 'add')]


# RenamedToolset


async def test_renamed_names_and_calls():
    math = math_toolset()
    renamed = math.renamed({'plus': 'add', 'ghost': 'not_a_tool'})
    assert renamed == RenamedToolset(math, {'plus': 'add', 'ghost': 'not_a_tool'})
    assert renamed.label == snapshot("RenamedToolset(FunctionToolset 'math')")

    tools = await renamed.get_tools(make_ctx())
    assert {name: (tool.tool_def.name, tool.toolset) for name, tool in tools.items()} == {
        'plus': ('plus', renamed),
        'whoami': ('whoami', math),
    }
    assert await call(renamed, 'plus', {'a': 4, 'b': 4}) == 8
    assert await call(renamed, 'whoami', {}) == 'called as whoami'


async def test_renamed_swap_and_ctx_tool_name():
    renamed = math_toolset().renamed({'whoami': 'add', 'add': 'whoami'})
    tools = await renamed.get_tools(make_ctx())
    assert {name: tool.tool_def.description for name, tool in tools.items()} == snapshot(
        {'whoami': 'Add two numbers.', 'add': 'Say which tool name the call arrived under.'}
    )
    assert await call(renamed, 'add', {}) == 'called as whoami'
    assert await call(renamed, 'whoami', {'a': 1, 'b': 1}) == 2


# FilteredToolset


async def test_filtered_decides_per_run_context():
    math = math_toolset()
    filtered = math.filtered(lambda ctx, tool_def: ctx.run_step > 1 or tool_def.name == 'add')
    assert filtered == FilteredToolset(math, filtered.filter_func)
    assert filtered.label == snapshot("FilteredToolset(FunctionToolset 'math')")
    assert await tool_names(filtered, make_ctx(run_step=1)) == ['add']
    assert await tool_names(filtered, make_ctx(run_step=2)) == ['add', 'whoami']
    assert await call(filtered, 'add', {'a': 1, 'b': 2}) == 3


# PreparedToolset


async def test_prepared_changes_definitions():
    async def prepare(ctx: RunContext[None], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
        return [
            replace(tool_def, description=f'{tool_def.description} (step {ctx.run_step})')
            for tool_def in reversed(tool_defs)
            if tool_def.name != 'whoami'
        ] + [replace(tool_defs[0], strict=True)]

    math = math_toolset()
    prepared = math.prepared(prepare)
    assert prepared == PreparedToolset(math, prepare)
    tools = await prepared.get_tools(make_ctx(run_step=3))
    # A later definition with the same name wins.
    assert {name: (tool.tool_def.description, tool.tool_def.strict) for name, tool in tools.items()} == snapshot(
        {'add': ('Add two numbers.', True)}
    )
    assert tools['add'].toolset is math
    assert await call(prepared, 'add', {'a': 1, 'b': 2}) == 3


async def test_prepared_can_reorder_and_describe():
    async def prepare(ctx: RunContext[None], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
        return [replace(tool_def, description=f'step {ctx.run_step}') for tool_def in reversed(tool_defs)]

    tools = await math_toolset().prepared(prepare).get_tools(make_ctx(run_step=2))
    assert {name: tool.tool_def.description for name, tool in tools.items()} == snapshot(
        {'whoami': 'step 2', 'add': 'step 2'}
    )


async def test_prepared_returning_none_hides_all_tools():
    async def prepare(ctx: RunContext[None], tool_defs: list[ToolDefinition]) -> list[ToolDefinition] | None:
        return None

    assert await math_toolset().prepared(prepare).get_tools(make_ctx()) == {}


@pytest.mark.parametrize('new_name', ['subtract', 'whoami_2'])
async def test_prepared_cannot_add_or_rename(new_name: str):
    async def prepare(ctx: RunContext[None], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
        return [*tool_defs, replace(tool_defs[0], name=new_name)]

    with pytest.raises(
        UserError,
        match=r'^Prepare function cannot add or rename tools\. '
        r'Use `FunctionToolset\.add_function\(\)` or `RenamedToolset` instead\.$',
    ):
        await math_toolset().prepared(prepare).get_tools(make_ctx())


# ApprovalRequiredToolset


async def test_approval_required_by_default():
    toolset = math_toolset().approval_required()
    with pytest.raises(ApprovalRequired) as exc_info:
        await call(toolset, 'add', {'a': 1, 'b': 2})
    assert exc_info.value.metadata is None
    assert await call(toolset, 'add', {'a': 1, 'b': 2}, make_ctx(tool_call_approved=True)) == 3
    assert toolset.label == snapshot("ApprovalRequiredToolset(FunctionToolset 'math')")
    # The class's default predicate is shared, so two default instances compare equal.
    assert ApprovalRequiredToolset(toolset.wrapped) == ApprovalRequiredToolset(toolset.wrapped)
    with pytest.raises(ApprovalRequired):
        await call(ApprovalRequiredToolset(toolset.wrapped), 'whoami', {})


async def test_approval_required_predicate():
    asked: list[tuple[str, dict[str, Any]]] = []

    def big_sums(ctx: RunContext[None], tool_def: ToolDefinition, tool_args: dict[str, Any]) -> bool:
        asked.append((tool_def.name, tool_args))
        return tool_def.name == 'add' and tool_args['a'] + tool_args['b'] > 10

    toolset = math_toolset().approval_required(big_sums)
    assert toolset.approval_required_func is big_sums
    assert await tool_names(toolset) == ['add', 'whoami']
    assert await call(toolset, 'add', {'a': 1, 'b': 2}) == 3
    with pytest.raises(ApprovalRequired):
        await call(toolset, 'add', {'a': 10, 'b': 2})
    # An approved call is not asked about again.
    assert await call(toolset, 'add', {'a': 10, 'b': 2}, make_ctx(tool_call_approved=True)) == 12
    assert await call(toolset, 'whoami', {}) == 'called as whoami'
    assert asked == [('add', {'a': 1, 'b': 2}), ('add', {'a': 10, 'b': 2}), ('whoami', {})]


# ExternalToolset


EXTERNAL_DEFS = [
    ToolDefinition(
        name='get_location',
        description='Ask the browser for the location.',
        parameters_json_schema={'type': 'object', 'properties': {'precise': {'type': 'boolean'}}},
    ),
    ToolDefinition(name='confirm', kind='unapproved', metadata={'ui': 'dialog'}),
]


async def test_external_tools_are_external():
    toolset = ExternalToolset[None](EXTERNAL_DEFS, id='browser')
    assert (toolset.id, toolset.label, toolset.tool_defs) == ('browser', "ExternalToolset 'browser'", EXTERNAL_DEFS)
    tools = await toolset.get_tools(make_ctx())
    assert [tool.tool_def for tool in tools.values()] == snapshot(
        [
            ToolDefinition(
                name='get_location',
                parameters_json_schema={'type': 'object', 'properties': {'precise': {'type': 'boolean'}}},
                description='Ask the browser for the location.',
                kind='external',
            ),
            ToolDefinition(name='confirm', kind='external', metadata={'ui': 'dialog'}),
        ]
    )
    assert all(tool.max_retries == 0 and tool.toolset is toolset for tool in tools.values())
    assert all(tool_def.kind != 'external' for tool_def in EXTERNAL_DEFS)
    # Arguments are passed on unchecked: whoever runs the tool checks them.
    assert tools['confirm'].args_validator.validate_json('{"anything": [1]}') == {'anything': [1]}


async def test_external_tools_cannot_be_called():
    toolset = ExternalToolset[None](EXTERNAL_DEFS)
    assert (toolset.id, toolset.label) == (None, 'ExternalToolset')
    with pytest.raises(NotImplementedError, match=r'^External tools cannot be called directly$'):
        await call(toolset, 'get_location', {'precise': True})


async def test_deferred_toolset_is_deprecated():
    with pytest.warns(DeprecationWarning, match=r'^`DeferredToolset` is deprecated, use `ExternalToolset` instead$'):
        toolset = DeferredToolset[None](EXTERNAL_DEFS, id='old')  # pyright: ignore[reportDeprecated] -- under test
    assert isinstance(toolset, ExternalToolset)
    assert toolset.label == "DeferredToolset 'old'"
    assert await tool_names(toolset) == ['get_location', 'confirm']


# DynamicToolset


async def test_dynamic_toolset_is_remade_each_step():
    events: list[str] = []

    def make(ctx: RunContext[None]) -> AbstractToolset[None]:
        return Recorder(FunctionToolset([Tool(add, name=f'add_{ctx.run_step}')], id=f'step{ctx.run_step}'), events)

    dynamic = DynamicToolset(make)
    assert (dynamic.id, dynamic.label, dynamic.per_run_step) == (None, 'DynamicToolset', True)
    async with dynamic as entered:
        assert entered is dynamic
        assert events == []
        assert await tool_names(dynamic, make_ctx(run_step=1)) == ['add_1']
        assert await call(dynamic, 'add_1', {'a': 1, 'b': 1}, make_ctx(run_step=1)) == 2
        assert await tool_names(dynamic, make_ctx(run_step=2)) == ['add_2']
    assert events == snapshot(
        [
            "enter FunctionToolset 'step1'",
            "exit FunctionToolset 'step1'",
            "enter FunctionToolset 'step2'",
            "exit FunctionToolset 'step2'",
        ]
    )


async def test_dynamic_toolset_once_per_run():
    made: list[int] = []

    async def make(ctx: RunContext[None]) -> AbstractToolset[None]:
        made.append(ctx.run_step)
        return math_toolset()

    dynamic = DynamicToolset(make, per_run_step=False, id='tools')
    assert dynamic.label == "DynamicToolset 'tools'"
    async with dynamic:
        assert await tool_names(dynamic, make_ctx(run_step=1)) == ['add', 'whoami']
        assert await tool_names(dynamic, make_ctx(run_step=2)) == ['add', 'whoami']
    assert made == [1]
    # Leaving it forgets the toolset, so the next run makes a new one.
    async with dynamic:
        await dynamic.get_tools(make_ctx(run_step=1))
    assert made == [1, 1]


async def test_dynamic_toolset_without_tools():
    def make(ctx: RunContext[None]) -> AbstractToolset[None] | None:
        return None

    dynamic = DynamicToolset(make)
    async with dynamic:
        assert await dynamic.get_tools(make_ctx()) == {}
        with pytest.raises(AssertionError):
            await dynamic.call_tool('add', {}, make_ctx(), (await math_toolset().get_tools(make_ctx()))['add'])
    assert await dynamic.__aexit__(None, None, None) is None


async def test_dynamic_toolset_visiting():
    math = math_toolset()

    def make(ctx: RunContext[None]) -> AbstractToolset[None]:
        return math

    dynamic = DynamicToolset(make)
    visited: list[AbstractToolset[None]] = []
    dynamic.apply(visited.append)
    assert visited == [dynamic]
    assert dynamic.visit_and_replace(lambda toolset: toolset.prefixed('p')) == PrefixedToolset(dynamic, 'p')

    async with dynamic:
        await dynamic.get_tools(make_ctx(run_step=4))
        visited.clear()
        dynamic.apply(visited.append)
        assert visited == [math]

        replaced = dynamic.visit_and_replace(lambda toolset: toolset.prefixed('p'))
        assert isinstance(replaced, DynamicToolset)
        assert replaced == dynamic
        assert replaced._toolset == PrefixedToolset(math, 'p')
        assert replaced._run_step == 4
        assert await tool_names(replaced, make_ctx(run_step=4)) == ['p_add', 'p_whoami']

        fresh = dynamic.copy()
        assert fresh == dynamic
        assert fresh._toolset is None


async def test_dynamic_toolset_equality():
    def make(ctx: RunContext[None]) -> None:
        return None

    def other(ctx: RunContext[None]) -> None:
        return None

    assert DynamicToolset(make) == DynamicToolset(make)
    assert DynamicToolset(make) != DynamicToolset(other)
    assert DynamicToolset(make, per_run_step=False) != DynamicToolset(make)
    assert DynamicToolset(make, id='a') != DynamicToolset(make, id='b')
    assert DynamicToolset(make) != make
    with pytest.raises(TypeError):
        hash(DynamicToolset(make))
