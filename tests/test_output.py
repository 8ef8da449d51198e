"""Structured output: output types, output tools, native and prompted output, output functions and validators."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC
from typing import Any, Union, cast

import pydantic_ai.output
import pytest
from dirty_equals import IsNow, IsStr
from inline_snapshot import snapshot
from pydantic import BaseModel, ConfigDict, Field, RootModel, ValidationInfo, field_validator
from pydantic_ai import (
    Agent,
    DeferredToolRequests,
    ModelRetry,
    NativeOutput,
    PromptedOutput,
    RunContext,
    StructuredDict,
    TextOutput,
    ToolOutput,
    UnexpectedModelBehavior,
    UserError,
)
from pydantic_ai._errors import ToolRetryError
from pydantic_ai._output import OutputSchema, OutputValidator
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel
from pydantic_ai.output import OutputObjectDefinition, OutputSpec
from pydantic_ai.profiles import DEFAULT_PROFILE, ModelProfile
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.usage import RequestUsage, RunUsage
from typing_extensions import TypedDict

from ._messages import request_parts

pytestmark = pytest.mark.anyio

NATIVE = ModelProfile(supports_json_schema_output=True)
IS_NOW: Any = IsNow(tz=UTC)
IS_STR: Any = IsStr()


class Answer(BaseModel):
    """An answer."""

    value: int


class Other(BaseModel):
    label: str


@dataclass
class Point:
    x: int


class Movie(TypedDict):
    title: str


# Unions as values are not `type[...]` to a type checker, as with upstream: a list of types is the typed spelling.
BARE_UNION: Any = Answer | Other
TYPING_UNION: Any = Union[Answer, Other]  # noqa: UP007 -- `typing.Union` has a name, unlike `X | Y`
OPTIONAL_INT: Any = Union[int, None]  # noqa: UP007 -- as above


def make_thing(count: int, name: str) -> str:
    """Make a thing."""
    return f'{count} {name}'


def shout(text: str) -> str:
    return text.upper()


def scripted(*responses: ModelResponse | str, profile: ModelProfile | None = None) -> FunctionModel:
    """A model answering the n-th request with the n-th response (text or a response), repeating the last."""

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        done = sum(isinstance(message, ModelResponse) for message in messages)
        response = responses[min(done, len(responses) - 1)]
        return ModelResponse(parts=[TextPart(response)]) if isinstance(response, str) else response

    return FunctionModel(answer, profile=profile or ModelProfile())


def call(tool_name: str, args: dict[str, Any] | str | None, tool_call_id: str = 'call-1') -> ModelResponse:
    return ModelResponse(parts=[ToolCallPart(tool_name, args, tool_call_id=tool_call_id)])


def output_tools(output_type: OutputSpec[Any], **model_args: Any) -> list[ToolDefinition]:
    """The output tools a `TestModel` is offered for an output type."""
    model = TestModel(**model_args)
    Agent(model, output_type=output_type).run_sync('x')
    assert model.last_model_request_parameters is not None
    return model.last_model_request_parameters.output_tools


def retry_contents(messages: list[ModelMessage]) -> list[Any]:
    return [part.content for part in request_parts(messages, RetryPromptPart)]


def run_context(model: TestModel | FunctionModel | None = None) -> RunContext[None]:
    return RunContext(deps=None, model=model or TestModel(), usage=RunUsage())


# The public module.


def test_public_names():
    assert pydantic_ai.output.__all__ == snapshot(
        (
            'DeferredToolRequests',
            'NativeOutput',
            'OutputDataT',
            'OutputMode',
            'OutputObjectDefinition',
            'OutputSpec',
            'OutputTypeOrFunction',
            'PromptedOutput',
            'StructuredDict',
            'StructuredOutputMode',
            'TextOutput',
            'TextOutputFunc',
            'ToolOutput',
        )
    )
    assert all(hasattr(pydantic_ai.output, name) for name in pydantic_ai.output.__all__)
    assert pydantic_ai.output.DeferredToolRequests is DeferredToolRequests


def test_marker_reprs():
    assert repr(ToolOutput(Answer)) == snapshot(
        "ToolOutput(output=<class 'tests.test_output.Answer'>, name=None, description=None, max_retries=None, strict=None)"
    )
    assert repr(ToolOutput(int, name='n', description='d', max_retries=3, strict=True)) == snapshot(
        "ToolOutput(output=<class 'int'>, name='n', description='d', max_retries=3, strict=True)"
    )
    assert repr(NativeOutput([Answer, Other], name='n', strict=False)) == snapshot(
        "NativeOutput(outputs=[<class 'tests.test_output.Answer'>, <class 'tests.test_output.Other'>], name='n', description=None, strict=False, template=None)"
    )
    assert repr(PromptedOutput(int, template='t')) == snapshot(
        "PromptedOutput(outputs=<class 'int'>, name=None, description=None, template='t')"
    )
    assert repr(TextOutput(shout)) == snapshot(f'TextOutput(output_function={shout!r})')
    assert repr(OutputObjectDefinition({'type': 'object'})) == snapshot(
        "OutputObjectDefinition(json_schema={'type': 'object'}, name=None, description=None, strict=None)"
    )
    assert ToolOutput(int, name='n') == ToolOutput(int, name='n')


# Output tools.


def test_str_is_the_default_text_output():
    model = TestModel()
    result = Agent(model).run_sync('x')
    assert result.output == snapshot('success (no tool calls)')
    assert model.last_model_request_parameters == ModelRequestParameters()


def test_scalar_output_is_wrapped_under_response():
    model = TestModel()
    result = Agent(model, output_type=int).run_sync('x')
    assert result.output == 0
    assert model.last_model_request_parameters == snapshot(
        ModelRequestParameters(
            output_mode='tool',
            output_tools=[
                ToolDefinition(
                    name='final_result',
                    parameters_json_schema={
                        'properties': {'response': {'type': 'integer'}},
                        'required': ['response'],
                        'type': 'object',
                    },
                    description='The final response which ends this conversation',
                    outer_typed_dict_key='response',
                    kind='output',
                )
            ],
            allow_text_output=False,
        )
    )
    assert result.all_messages()[1:] == snapshot(
        [
            ModelResponse(
                parts=[
                    ToolCallPart(
                        tool_name='final_result', args={'response': 0}, tool_call_id='pyd_ai_tool_call_id__final_result'
                    )
                ],
                usage=RequestUsage(input_tokens=51, output_tokens=4),
                model_name='test',
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
            ModelRequest(
                parts=[
                    ToolReturnPart(
                        tool_name='final_result',
                        content='Final result processed.',
                        tool_call_id='pyd_ai_tool_call_id__final_result',
                        timestamp=IS_NOW,
                    )
                ],
                timestamp=IS_NOW,
                run_id=IS_STR,
            ),
        ]
    )


def test_lists_and_generics_are_wrapped_with_their_definitions():
    assert output_tools(list[Answer]) == snapshot(
        [
            ToolDefinition(
                name='final_result',
                parameters_json_schema={
                    '$defs': {
                        'Answer': {
                            'description': 'An answer.',
                            'properties': {'value': {'type': 'integer'}},
                            'required': ['value'],
                            'title': 'Answer',
                            'type': 'object',
                        }
                    },
                    'properties': {'response': {'items': {'$ref': '#/$defs/Answer'}, 'type': 'array'}},
                    'required': ['response'],
                    'type': 'object',
                },
                description='The final response which ends this conversation',
                outer_typed_dict_key='response',
                kind='output',
            )
        ]
    )
    # A union inside `ToolOutput` is one tool, whose value is wrapped.
    (union_tool,) = output_tools(ToolOutput(BARE_UNION))
    assert union_tool.outer_typed_dict_key == 'response'


def test_object_types_keep_their_title_and_give_their_docstring_as_description():
    assert output_tools(Answer) == snapshot(
        [
            ToolDefinition(
                name='final_result',
                parameters_json_schema={
                    'properties': {'value': {'type': 'integer'}},
                    'required': ['value'],
                    'title': 'Answer',
                    'type': 'object',
                },
                description='An answer.',
                kind='output',
            )
        ]
    )
    assert output_tools(Point) == snapshot(
        [
            ToolDefinition(
                name='final_result',
                parameters_json_schema={
                    'properties': {'x': {'type': 'integer'}},
                    'required': ['x'],
                    'title': 'Point',
                    'type': 'object',
                },
                description='The final response which ends this conversation',
                kind='output',
            )
        ]
    )
    result = Agent(TestModel(), output_type=Movie).run_sync('x')
    assert result.output == snapshot({'title': 'a'})


def test_root_models_must_be_objects():
    class Wrapped(RootModel[Answer]):
        pass

    class Numbers(RootModel[list[int]]):
        pass

    class Nested(BaseModel):
        answer: Answer

    class WrappedNested(RootModel[Nested]):
        pass

    result = Agent(TestModel(), output_type=Wrapped).run_sync('x')
    assert result.output == Wrapped(Answer(value=0))
    # A root model's schema is its model's when that is its only definition, and kept as it is otherwise.
    assert [
        (t.name, t.parameters_json_schema, t.description) for t in output_tools([Wrapped, WrappedNested])
    ] == snapshot(
        [
            (
                'final_result_Answer',
                {
                    'properties': {'value': {'type': 'integer'}},
                    'required': ['value'],
                    'title': 'Answer',
                    'type': 'object',
                },
                'An answer.',
            ),
            (
                'final_result_WrappedNested',
                {
                    '$defs': {
                        'Answer': {
                            'description': 'An answer.',
                            'properties': {'value': {'type': 'integer'}},
                            'required': ['value'],
                            'title': 'Answer',
                            'type': 'object',
                        },
                        'Nested': {
                            'properties': {'answer': {'$ref': '#/$defs/Answer'}},
                            'required': ['answer'],
                            'title': 'Nested',
                            'type': 'object',
                        },
                    },
                    '$ref': '#/$defs/Nested',
                    'title': 'WrappedNested',
                },
                'WrappedNested: The final response which ends this conversation',
            ),
        ]
    )
    with pytest.raises(UserError, match=r'^Schema must be an object$'):
        Agent(TestModel(), output_type=Numbers)


def test_unions_and_lists_give_a_tool_per_member():
    tools = output_tools(BARE_UNION)
    assert tools == snapshot(
        [
            ToolDefinition(
                name='final_result_Answer',
                parameters_json_schema={
                    'properties': {'value': {'type': 'integer'}},
                    'required': ['value'],
                    'title': 'Answer',
                    'type': 'object',
                },
                description='An answer.',
                kind='output',
            ),
            ToolDefinition(
                name='final_result_Other',
                parameters_json_schema={
                    'properties': {'label': {'type': 'string'}},
                    'required': ['label'],
                    'title': 'Other',
                    'type': 'object',
                },
                description='Other: The final response which ends this conversation',
                kind='output',
            ),
        ]
    )
    assert output_tools([Answer, Other]) == tools
    assert output_tools([[Answer], (Other,)]) == tools
    assert [(t.name, t.description) for t in output_tools(OPTIONAL_INT)] == snapshot(
        [
            ('final_result_int', 'int: The final response which ends this conversation'),
            ('final_result_NoneType', 'NoneType: The final response which ends this conversation'),
        ]
    )


def test_tool_names_are_unique_and_sanitized():
    class Fancy(BaseModel):
        model_config = ConfigDict(title='My Fancy-Model.v2!')
        x: int

    assert [t.name for t in output_tools([Answer, Answer, list[int], list[str], Fancy])] == snapshot(
        [
            'final_result_Answer',
            'final_result_Answer_2',
            'final_result_list',
            'final_result_list_2',
            'final_result_MyFancy-Modelv2',
        ]
    )
    assert [
        t.name for t in output_tools([ToolOutput(Answer, name='x'), ToolOutput(Other, name='x'), TYPING_UNION])
    ] == snapshot(['x', 'x_2', 'final_result_Answer', 'final_result_Other'])
    # A union that has no name gives an empty suffix, as upstream's does.
    assert [
        (t.name, t.description) for t in output_tools([ToolOutput(BARE_UNION), ToolOutput(TYPING_UNION)])
    ] == snapshot(
        [
            ('final_result_', 'None: The final response which ends this conversation'),
            ('final_result_Union', 'Union: The final response which ends this conversation'),
        ]
    )


def test_str_among_other_outputs_allows_text():
    model = TestModel()
    result = Agent(model, output_type=[str, Answer]).run_sync('x')
    assert result.output == 'success (no tool calls)'
    params = model.last_model_request_parameters
    assert params is not None
    assert (params.output_mode, params.allow_text_output, [t.name for t in params.output_tools]) == snapshot(
        ('tool', True, ['final_result'])
    )
    model = TestModel()
    result = Agent(model, output_type=[TextOutput(shout), Answer]).run_sync('x')
    assert result.output == 'SUCCESS (NO TOOL CALLS)'


def test_tool_output_options():
    assert output_tools(ToolOutput(Answer, name='give', description='Give it', strict=True, max_retries=3)) == snapshot(
        [
            ToolDefinition(
                name='give',
                parameters_json_schema={
                    'properties': {'value': {'type': 'integer'}},
                    'required': ['value'],
                    'title': 'Answer',
                    'type': 'object',
                },
                description='Give it. An answer.',
                strict=True,
                kind='output',
            )
        ]
    )
    assert [
        (t.name, t.description, t.strict)
        for t in output_tools([ToolOutput(Other, description='dd', strict=False), Answer])
    ] == snapshot([('final_result_Other', 'dd', False), ('final_result_Answer', 'An answer.', None)])
    schema = OutputSchema[Any].build([ToolOutput(int, max_retries=3), str])
    assert (schema.max_retries_for('final_result'), schema.max_retries_for('unknown')) == (3, None)


async def test_tool_output_validation_errors_are_retried_without_error_context():
    model = scripted(
        call('final_result', {'value': -1}),
        call('final_result', '{"value": oops', 'call-2'),
        call('final_result', {'value': 5}, 'call-3'),
    )

    class Positive(BaseModel):
        value: int = Field(gt=0)

    result = await Agent(model, output_type=Positive, output_retries=2).run('x')
    assert result.output == Positive(value=5)
    assert result.all_messages()[2].parts == snapshot(
        [
            RetryPromptPart(
                [{'type': 'greater_than', 'loc': ('value',), 'msg': 'Input should be greater than 0', 'input': -1}],
                tool_name='final_result',
                tool_call_id='call-1',
                timestamp=IS_NOW,
            )
        ]
    )
    assert retry_contents(result.all_messages())[1] == snapshot(
        [
            {
                'type': 'json_invalid',
                'loc': (),
                'msg': 'Invalid JSON: expected value at line 1 column 11',
                'input': '{"value": oops',
            }
        ]
    )


async def test_wrapped_values_may_arrive_as_json_text():
    model = scripted(call('final_result', {'response': '[1, 2]'}))
    assert (await Agent(model, output_type=list[int]).run('x')).output == [1, 2]
    model = scripted(
        call('final_result', {'response': 'a'}), call('final_result', None), call('final_result', {'response': 3})
    )
    result = await Agent(model, output_type=int, output_retries=2).run('x')
    assert result.output == 3
    assert retry_contents(result.all_messages()) == snapshot(
        [
            [
                {
                    'type': 'int_parsing',
                    'loc': ('response', 'int'),
                    'msg': 'Input should be a valid integer, unable to parse string as an integer',
                    'input': 'a',
                },
                {
                    'type': 'json_invalid',
                    'loc': ('response', 'json[int]'),
                    'msg': 'Invalid JSON: expected value at line 1 column 1',
                    'input': 'a',
                },
            ],
            [{'type': 'missing', 'loc': ('response',), 'msg': 'Field required', 'input': {}}],
        ]
    )


# Output functions.


async def test_output_function_is_called_with_validated_arguments():
    model = TestModel()
    result = await Agent(model, output_type=make_thing).run('x')
    assert result.output == '0 a'
    assert model.last_model_request_parameters is not None
    assert model.last_model_request_parameters.output_tools == snapshot(
        [
            ToolDefinition(
                name='final_result',
                parameters_json_schema={
                    'additionalProperties': False,
                    'properties': {'count': {'type': 'integer'}, 'name': {'type': 'string'}},
                    'required': ['count', 'name'],
                    'type': 'object',
                },
                description='Make a thing.',
                kind='output',
            )
        ]
    )


async def test_output_function_gets_the_context_and_may_ask_for_a_retry():
    seen: list[tuple[str | None, str | None, bool]] = []

    async def check(ctx: RunContext[str], value: int) -> str:
        seen.append((ctx.tool_name, ctx.tool_call_id, ctx.partial_output))
        if value < 0:
            raise ModelRetry('The value must not be negative.')
        return f'{ctx.deps}: {value}'

    model = scripted(
        call('final_result', {'value': -1}),
        call('final_result', {'value': 'x'}, 'call-2'),
        call('final_result', {'value': 2}, 'call-3'),
    )
    result = await Agent(model, deps_type=str, output_type=check, output_retries=2).run('x', deps='deps')
    assert result.output == 'deps: 2'
    assert seen == [('final_result', 'call-1', False), ('final_result', 'call-3', False)]
    assert result.all_messages()[2].parts == snapshot(
        [
            RetryPromptPart(
                'The value must not be negative.',
                tool_name='final_result',
                tool_call_id='call-1',
                timestamp=IS_NOW,
            )
        ]
    )


def test_output_functions_among_types():
    def from_model(answer: Answer) -> int:
        return answer.value * 10

    tools = output_tools([make_thing, from_model])
    # A function taking one model uses the model's schema, and its name.
    assert [(t.name, t.parameters_json_schema.get('title')) for t in tools] == snapshot(
        [('final_result_make_thing', None), ('final_result_Answer', 'Answer')]
    )
    model = scripted(call('final_result_Answer', {'value': 4}))
    assert Agent(model, output_type=[make_thing, from_model]).run_sync('x').output == 40


async def test_text_output_function():
    result = await Agent(TestModel(custom_output_text='hello'), output_type=TextOutput(shout)).run('x')
    assert result.output == 'HELLO'

    def checked(ctx: RunContext[None], text: str) -> int:
        if text == 'bad':
            raise ModelRetry('Say something else.')
        return len(text)

    result = await Agent(scripted('bad', 'good'), output_type=TextOutput(checked)).run('x')
    assert result.output == 4
    assert result.all_messages()[2].parts == snapshot(
        [RetryPromptPart('Say something else.', tool_call_id=IS_STR, timestamp=IS_NOW)]
    )


def untyped(text: Any):
    return 'x'


def no_arguments() -> str:
    return 'x'


def two_texts(text: str, other: str = '') -> str:
    return text + other


@pytest.mark.parametrize('function', [untyped, no_arguments, two_texts, len])
def test_text_output_function_takes_one_str(function: Any):
    with pytest.raises(UserError, match=r'^TextOutput must take a function taking a single `str` argument$'):
        Agent(TestModel(), output_type=TextOutput(function))


# Native and prompted output.


def test_native_output_needs_model_support():
    with pytest.raises(UserError, match=r'^Native structured output is not supported by this model.$'):
        Agent(TestModel(), output_type=NativeOutput(Answer)).run_sync('x')


def test_tool_output_needs_model_support():
    with pytest.raises(UserError, match=r'^Tool output is not supported by this model.$'):
        Agent(TestModel(profile=ModelProfile(supports_tools=False)), output_type=Answer).run_sync('x')


async def test_native_output_of_one_type():
    infos: list[AgentInfo] = []

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        infos.append(info)
        return ModelResponse(parts=[TextPart('```json\n{"value": 3}\n```')])

    output_type = NativeOutput(Answer, name='the_answer', description='Answer it', strict=True)
    result = await Agent(FunctionModel(answer, profile=NATIVE), output_type=output_type).run('x')
    assert result.output == Answer(value=3)
    assert infos[0].model_request_parameters == snapshot(
        ModelRequestParameters(
            output_mode='native',
            output_object=OutputObjectDefinition(
                json_schema={
                    'properties': {'value': {'type': 'integer'}},
                    'required': ['value'],
                    'title': 'Answer',
                    'type': 'object',
                },
                name='the_answer',
                description='Answer it. An answer.',
                strict=True,
            ),
        )
    )
    assert infos[0].instructions is None


async def test_native_output_wraps_scalars_and_calls_functions():
    model = scripted('{"response": [1, 2]}', profile=NATIVE)
    assert (await Agent(model, output_type=NativeOutput(list[int])).run('x')).output == [1, 2]
    model = scripted('{"count": 2, "name": "cats"}', profile=NATIVE)
    assert (await Agent(model, output_type=NativeOutput(make_thing)).run('x')).output == '2 cats'


async def test_native_output_union_names_the_chosen_output():
    infos: list[AgentInfo] = []
    responses = [
        '{"result": {"kind": "Nope", "data": {}}}',
        '{"result": {"kind": "Answer", "data": {"value": "x"}}}',
        'not json',
        '{"result": {"kind": "Other", "data": {"label": "L"}}}',
    ]

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        infos.append(info)
        return ModelResponse(parts=[TextPart(responses[len(infos) - 1])])

    model = FunctionModel(answer, profile=NATIVE)
    result = await Agent(model, output_type=NativeOutput([Answer, Other]), output_retries=3).run('x')
    assert result.output == Other(label='L')
    assert infos[0].model_request_parameters.output_object == snapshot(
        OutputObjectDefinition(
            json_schema={
                'type': 'object',
                'properties': {
                    'result': {
                        'anyOf': [
                            {
                                'type': 'object',
                                'properties': {
                                    'kind': {'type': 'string', 'const': 'Answer'},
                                    'data': {
                                        'properties': {'value': {'type': 'integer'}},
                                        'required': ['value'],
                                        'type': 'object',
                                    },
                                },
                                'required': ['kind', 'data'],
                                'additionalProperties': False,
                                'title': 'Answer',
                                'description': 'An answer.',
                            },
                            {
                                'type': 'object',
                                'properties': {
                                    'kind': {'type': 'string', 'const': 'Other'},
                                    'data': {
                                        'properties': {'label': {'type': 'string'}},
                                        'required': ['label'],
                                        'type': 'object',
                                    },
                                },
                                'required': ['kind', 'data'],
                                'additionalProperties': False,
                                'title': 'Other',
                            },
                        ]
                    }
                },
                'required': ['result'],
                'additionalProperties': False,
            }
        )
    )
    # Text validation errors keep their context, unlike tool argument errors.
    assert retry_contents(result.all_messages()) == snapshot(
        [
            'Invalid kind: Nope',
            [
                {
                    'type': 'int_parsing',
                    'loc': ('value',),
                    'msg': 'Input should be a valid integer, unable to parse string as an integer',
                    'input': 'x',
                }
            ],
            [
                {
                    'type': 'json_invalid',
                    'loc': (),
                    'msg': 'Invalid JSON: expected ident at line 1 column 2',
                    'input': 'not json',
                    'ctx': {'error': 'expected ident at line 1 column 2'},
                }
            ],
        ]
    )


def test_native_union_definitions_and_duplicate_kinds():
    class Inner(BaseModel):
        v: int

    class Outer(BaseModel):
        inner: Inner

    schema = OutputSchema[Any].build(PromptedOutput([Outer, Outer, int], name='choice', description='ignored'))
    object_def = schema.request_parameters(TestModel())['output_object']
    assert object_def == snapshot(
        OutputObjectDefinition(
            json_schema={
                'type': 'object',
                'properties': {
                    'result': {
                        'anyOf': [
                            {
                                'type': 'object',
                                'properties': {
                                    'kind': {'type': 'string', 'const': 'Outer'},
                                    'data': {
                                        'properties': {'inner': {'$ref': '#/$defs/Inner'}},
                                        'required': ['inner'],
                                        'type': 'object',
                                    },
                                },
                                'required': ['kind', 'data'],
                                'additionalProperties': False,
                                'title': 'Outer',
                            },
                            {
                                'type': 'object',
                                'properties': {
                                    'kind': {'type': 'string', 'const': 'Outer_2'},
                                    'data': {
                                        'properties': {'inner': {'$ref': '#/$defs/Inner'}},
                                        'required': ['inner'],
                                        'type': 'object',
                                    },
                                },
                                'required': ['kind', 'data'],
                                'additionalProperties': False,
                                'title': 'Outer',
                            },
                            {
                                'type': 'object',
                                'properties': {
                                    'kind': {'type': 'string', 'const': 'int'},
                                    'data': {
                                        'properties': {'response': {'type': 'integer'}},
                                        'required': ['response'],
                                        'type': 'object',
                                    },
                                },
                                'required': ['kind', 'data'],
                                'additionalProperties': False,
                                'title': 'int',
                            },
                        ]
                    }
                },
                'required': ['result'],
                'additionalProperties': False,
                '$defs': {
                    'Inner': {
                        'properties': {'v': {'type': 'integer'}},
                        'required': ['v'],
                        'title': 'Inner',
                        'type': 'object',
                    }
                },
            },
            name='choice',
        )
    )


@pytest.mark.parametrize(
    ('text', 'value'),
    [
        ('{"value": 1}', 1),
        (' \n{"value": 1}\n ', 1),
        ('```\n{"value": 1}\n```', 1),
        ('Here:\n```json\n{"value": 1}\n``` done', 1),
        ('```json\n{"value": 1}', 1),
        ('  {"value": 1}\n```json\n{"value": 2}\n```', 2),
        ('{"value": 1}\n```json\n{"value": 2}\n```', None),
        ('```json\n  {"value": 1}\n```', None),
        ('Sure: {"value": 1}', None),
    ],
)
async def test_json_is_found_in_markdown_fences(text: str, value: int | None):
    model = scripted(text, profile=NATIVE)
    agent = Agent(model, output_type=NativeOutput(Answer), output_retries=0)
    if value is None:
        with pytest.raises(UnexpectedModelBehavior, match=r'^Exceeded maximum retries \(0\) for output validation$'):
            await agent.run('x')
    else:
        assert (await agent.run('x')).output == Answer(value=value)


async def test_prompted_output_instructions_are_added_by_the_model():
    infos: list[AgentInfo] = []

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        infos.append(info)
        return ModelResponse(parts=[TextPart('{"value": 7}')])

    agent = Agent(
        FunctionModel(answer),
        output_type=PromptedOutput(Answer, name='the_answer', description='Say it'),
        instructions='Be nice.',
    )
    result = await agent.run('x')
    assert result.output == Answer(value=7)
    params = infos[0].model_request_parameters
    assert (params.output_mode, params.prompted_output_template) == snapshot(
        (
            'prompted',
            """\

Always respond with a JSON object that's compatible with this schema:

{schema}

Don't include any text or Markdown fencing before or after.
""",
        )
    )
    assert infos[0].instructions == snapshot(
        """\
Be nice.


Always respond with a JSON object that's compatible with this schema:

{"properties": {"value": {"type": "integer"}}, "required": ["value"], "title": "the_answer", "type": "object", "description": "Say it. An answer."}

Don't include any text or Markdown fencing before or after.
"""
    )
    # The schema reaches the model, not the conversation.
    assert result.all_messages()[0] == snapshot(
        ModelRequest(
            parts=[UserPromptPart('x', timestamp=IS_NOW)],
            instructions='Be nice.',
            timestamp=IS_NOW,
            run_id=IS_STR,
        )
    )


@pytest.mark.parametrize(
    ('output_type', 'profile', 'template'),
    [
        (PromptedOutput(Answer, template='Schema: {schema}'), ModelProfile(), 'Schema: {schema}'),
        (PromptedOutput(Answer, template=''), ModelProfile(prompted_output_template='P {schema}'), 'P {schema}'),
        (NativeOutput(Answer), NATIVE, None),
        (NativeOutput(Answer, template=''), NATIVE, ''),
        (NativeOutput(Answer, template='N {schema}'), NATIVE, 'N {schema}'),
        (
            NativeOutput(Answer),
            ModelProfile(
                supports_json_schema_output=True,
                native_output_requires_schema_in_instructions=True,
                prompted_output_template='P {schema}',
            ),
            'P {schema}',
        ),
        (
            NativeOutput(Answer, template='N {schema}'),
            ModelProfile(supports_json_schema_output=True, native_output_requires_schema_in_instructions=True),
            'N {schema}',
        ),
    ],
)
def test_output_templates(output_type: OutputSpec[Any], profile: ModelProfile, template: str | None):
    schema = OutputSchema[Any].build(output_type)
    assert schema.request_parameters(TestModel(profile=profile))['prompted_output_template'] == template


@pytest.mark.parametrize(
    ('profile', 'mode'),
    [
        (ModelProfile(), 'tool'),
        (ModelProfile(supports_json_schema_output=True, default_structured_output_mode='native'), 'native'),
        (ModelProfile(default_structured_output_mode='prompted'), 'prompted'),
    ],
)
def test_plain_types_follow_the_profile(profile: ModelProfile, mode: str):
    model = TestModel(profile=profile, custom_output_text=None if mode == 'tool' else '{"value": 1}')
    result = Agent(model, output_type=Answer).run_sync('x')
    assert result.output == (Answer(value=0) if mode == 'tool' else Answer(value=1))
    params = model.last_model_request_parameters
    assert params is not None
    assert params.output_mode == mode
    assert bool(params.output_tools) == (mode == 'tool')
    assert params.allow_text_output == (mode != 'tool')


def test_types_with_text_or_tool_output_always_use_tools():
    profile = ModelProfile(supports_json_schema_output=True, default_structured_output_mode='native')
    for output_type in [[str, Answer], ToolOutput(Answer), [TextOutput(shout), Answer]]:
        model = TestModel(profile=profile)
        Agent(model, output_type=output_type).run_sync('x')
        assert model.last_model_request_parameters is not None
        assert model.last_model_request_parameters.output_mode == 'tool'


async def test_text_response_for_structured_output():
    # With a plain type, text is read as JSON of the output, whatever the mode.
    result = await Agent(scripted('{"value": 5}'), output_type=Answer).run('x')
    assert result.output == Answer(value=5)
    result = await Agent(
        scripted('{"result": {"kind": "Other", "data": {"label": "z"}}}'), output_type=[Answer, Other]
    ).run('x')
    assert result.output == Other(label='z')
    # With `ToolOutput`, the model is told to call the tool.
    result = await Agent(
        scripted('{"value": 5}', call('final_result', {'value': 6})), output_type=ToolOutput(Answer)
    ).run('x')
    assert result.output == Answer(value=6)
    assert result.all_messages()[2].parts == snapshot(
        [
            RetryPromptPart(
                'Please include your response in a tool call.',
                tool_call_id=IS_STR,
                timestamp=IS_NOW,
            )
        ]
    )


# Structured dicts.


def test_structured_dict():
    schema = {
        'type': 'object',
        'properties': {
            'item': {'$ref': '#/$defs/Item', 'description': 'dropped'},
            'items': {'type': 'array', 'items': {'$ref': '#/$defs/Item'}},
        },
        'required': ['item'],
        '$defs': {'Item': {'type': 'string'}, 'Unused': {'$ref': '#/$defs/Unused'}},
    }
    assert output_tools(StructuredDict(schema, name='Thing', description='A thing')) == snapshot(
        [
            ToolDefinition(
                name='final_result',
                parameters_json_schema={
                    'properties': {'item': {'type': 'string'}, 'items': {'items': {'type': 'string'}, 'type': 'array'}},
                    'required': ['item'],
                    'title': 'Thing',
                    'type': 'object',
                },
                description='A thing',
                kind='output',
            )
        ]
    )
    result = Agent(TestModel(custom_output_args={'q': 1}), output_type=StructuredDict({'type': 'object'})).run_sync('x')
    assert result.output == {'q': 1}
    with pytest.raises(UserError, match=r'^Schema must be an object$'):
        StructuredDict({'type': 'array'})
    recursive = {
        'type': 'object',
        'properties': {'tree': {'$ref': '#/$defs/Tree'}},
        '$defs': {
            'Tree': {'type': 'object', 'properties': {'children': {'type': 'array', 'items': {'$ref': '#/$defs/Tree'}}}}
        },
    }
    with pytest.raises(
        UserError,
        match=r'^`StructuredDict` does not currently support recursive `\$ref`s and `\$defs`. See https://github.com/pydantic/pydantic/issues/12145 for more information.$',
    ):
        StructuredDict(recursive)


# Deferred tool requests and invalid specs.


def test_which_outputs_allow_text():
    assert [
        OutputSchema[Any].build(spec).allows_text
        for spec in [
            str,
            [str, Answer],
            TextOutput(shout),
            Answer,
            NativeOutput(Answer),
            ToolOutput(Answer),
            make_thing,
        ]
    ] == [True, True, True, True, True, False, True]


def test_deferred_tool_requests_among_outputs():
    schema = OutputSchema[Any].build([str, DeferredToolRequests])
    assert (schema.mode, schema.allows_deferred_tool_requests, schema.toolset) == ('text', True, None)
    schema = OutputSchema[Any].build([NativeOutput(Answer), DeferredToolRequests])
    assert (schema.mode, schema.allows_deferred_tool_requests) == ('native', True)
    assert OutputSchema[Any].build(Answer).allows_deferred_tool_requests is False
    assert [t.name for t in output_tools([Answer, DeferredToolRequests])] == ['final_result']


@pytest.mark.parametrize(
    ('output_type', 'message'),
    [
        ([], 'At least one output type must be provided.'),
        (DeferredToolRequests, 'At least one output type must be provided other than `DeferredToolRequests`.'),
        ([str, str], 'Only one `str` or `TextOutput` is allowed.'),
        ([TextOutput(shout), str], 'Only one `str` or `TextOutput` is allowed.'),
        ([NativeOutput(Answer), Other], '`NativeOutput` must be the only output type.'),
        ([str, PromptedOutput(Answer)], '`PromptedOutput` must be the only output type.'),
        (
            NativeOutput([Answer, DeferredToolRequests]),
            '`NativeOutput` cannot contain `DeferredToolRequests`. Include it alongside the native output marker '
            'instead: `output_type=[NativeOutput(...), DeferredToolRequests]`',
        ),
        (
            PromptedOutput(DeferredToolRequests),
            '`PromptedOutput` cannot contain `DeferredToolRequests`. Include it alongside the prompted output marker '
            'instead: `output_type=[PromptedOutput(...), DeferredToolRequests]`',
        ),
        (
            NativeOutput(cast(Any, TextOutput(shout))),
            '`NativeOutput` cannot contain `TextOutput`: give it types or functions.',
        ),
        (
            ToolOutput(cast(Any, ToolOutput(Answer))),
            '`ToolOutput` cannot contain `ToolOutput`: give it a type or function.',
        ),
    ],
)
def test_invalid_output_specs(output_type: Any, message: str):
    with pytest.raises(UserError) as exc_info:
        Agent(TestModel(), output_type=output_type)
    assert exc_info.value.message == message


# Output validators.


async def test_output_validators_check_and_change_text_output():
    calls: list[str] = []
    agent = Agent(scripted('first', 'second'))

    def no_first(output: str) -> str:
        calls.append(f'sync {output}')
        if output == 'first':
            raise ModelRetry('Not the first one.')
        return output + '!'

    async def with_context(ctx: RunContext[None], output: str) -> str:
        calls.append(f'async {output} {ctx.tool_name}')
        return output + '?'

    agent.output_validator(no_first)
    agent.output_validator(with_context)

    result = await agent.run('x')
    assert result.output == 'second!?'
    assert calls == ['sync first', 'sync second', 'async second! None']
    assert result.all_messages()[2].parts == snapshot(
        [RetryPromptPart('Not the first one.', tool_call_id=IS_STR, timestamp=IS_NOW)]
    )


async def test_output_validator_retry_of_a_tool_output_names_the_tool():
    agent = Agent(
        scripted(call('final_result', {'value': 1}), call('final_result', {'value': 2}, 'call-2')), output_type=Answer
    )
    names: list[tuple[str | None, str | None]] = []

    def above_one(ctx: RunContext[None], output: Answer) -> Answer:
        names.append((ctx.tool_name, ctx.tool_call_id))
        if output.value <= 1:
            raise ModelRetry('Bigger.')
        return output

    agent.output_validator(above_one)

    result = await agent.run('x')
    assert result.output == Answer(value=2)
    assert names == [('final_result', 'call-1'), ('final_result', 'call-2')]
    assert result.all_messages()[2].parts == snapshot(
        [RetryPromptPart('Bigger.', tool_name='final_result', tool_call_id='call-1', timestamp=IS_NOW)]
    )


async def test_validation_context_reaches_output_validation():
    class Scaled(BaseModel):
        value: int

        @field_validator('value')
        @classmethod
        def scale(cls, value: int, info: ValidationInfo) -> int:
            return value * (info.context or 1)

    model = scripted(call('final_result', {'value': 2}))
    assert (await Agent(model, output_type=Scaled, validation_context=10).run('x')).output == Scaled(value=20)
    model = scripted('{"value": 3}', profile=NATIVE)
    assert (await Agent(model, output_type=NativeOutput(Scaled), validation_context=10).run('x')).output == Scaled(
        value=30
    )


# The engine's streaming entry points: partial output, as `run_stream` validates it.


async def test_partial_output_keeps_unfinished_strings():
    class Story(BaseModel):
        title: str
        words: int = 0

    ctx = run_context()
    schema = OutputSchema[Any].build(Story)
    call_part = ToolCallPart('final_result', '{"title": "Once up', tool_call_id='call-1')
    assert await schema.process_tool_call(call_part, ctx, allow_partial=True) == Story(title='Once up')
    assert await schema.process_text('{"title": "Once up', ctx, allow_partial=True) == Story(title='Once up')
    with pytest.raises(ToolRetryError) as exc_info:
        await schema.process_tool_call(call_part, ctx)
    assert exc_info.value.tool_retry.tool_name == 'final_result'

    seen: list[bool] = []

    def titled(ctx: RunContext[None], title: str) -> str:
        seen.append(ctx.partial_output)
        return title.upper()

    schema = OutputSchema[Any].build(NativeOutput([titled, Story]))
    text = '{"result": {"kind": "titled", "data": {"title": "Once up'
    assert await schema.process_text(text, ctx, allow_partial=True) == 'ONCE UP'
    assert seen == [True]
    assert await OutputSchema[Any].build(str).process_text('par', ctx, allow_partial=True) == 'par'


async def test_process_tool_call_of_an_unknown_tool():
    schema = OutputSchema[Any].build([Answer, Other])
    with pytest.raises(ToolRetryError) as exc_info:
        await schema.process_tool_call(ToolCallPart('nope', {}, tool_call_id='call-1'), run_context())
    assert exc_info.value.tool_retry.content == snapshot(
        "Unknown tool name: 'nope'. Available tools: 'final_result_Answer', 'final_result_Other'"
    )


async def test_output_toolset_lists_tools_only_for_tool_mode():
    schema = OutputSchema[Any].build(make_thing)
    assert schema.toolset is not None
    ctx = run_context()
    tools = await schema.toolset.get_tools(ctx)
    assert list(tools) == ['final_result']
    tool = tools['final_result']
    assert tool.max_retries == 1
    args = tool.args_validator.validate_python({'count': 3, 'name': 'dogs'})
    assert await schema.toolset.call_tool('final_result', args, ctx, tool) == '3 dogs'
    native_ctx = run_context(
        TestModel(profile=ModelProfile(supports_json_schema_output=True, default_structured_output_mode='native'))
    )
    assert await schema.toolset.get_tools(native_ctx) == {}
    assert OutputSchema[Any].build(NativeOutput(Answer)).toolset is None


async def test_output_validator_outside_an_agent():
    def increment(output: int) -> int:
        return output + 1

    validator = OutputValidator[None, int](increment)
    assert await validator.validate(1, run_context()) == 2


# Model profiles.


def test_model_profile_update_and_from_profile():
    base = ModelProfile(supports_tools=False)
    updated = base.update(ModelProfile(supports_json_schema_output=True))
    assert (updated.supports_tools, updated.supports_json_schema_output) == (False, True)
    assert base.update(None) is base
    assert ModelProfile.from_profile(None) == DEFAULT_PROFILE
    assert ModelProfile.from_profile(base) is base
    assert DEFAULT_PROFILE.prompted_output_template == snapshot(
        """\

Always respond with a JSON object that's compatible with this schema:

{schema}

Don't include any text or Markdown fencing before or after.
"""
    )
