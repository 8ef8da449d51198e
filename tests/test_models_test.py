from __future__ import annotations

import re
from datetime import UTC
from typing import Any

import pytest
from dirty_equals import IsNow, IsStr
from inline_snapshot import snapshot
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.models.test import TestModel
from pydantic_ai.output import OutputObjectDefinition
from pydantic_ai.profiles import ModelProfile
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.usage import RequestUsage

pytestmark = pytest.mark.anyio

# Typed `Any` so they can stand in for the values they match inside message constructors.
IS_NOW: Any = IsNow(tz=UTC)
FRESH_ID: Any = IsStr(regex=r'pyd_ai_[0-9a-f]{32}')


def obj(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {'type': 'object', 'properties': properties}
    if required is not None:
        schema['required'] = required
    return schema


ADD = ToolDefinition(
    name='add', parameters_json_schema=obj({'a': {'type': 'integer'}, 'b': {'type': 'integer'}}, ['a', 'b'])
)
ECHO = ToolDefinition(name='echo', parameters_json_schema=obj({'text': {'type': 'string'}}, ['text']))
NO_ARGS = ToolDefinition(name='no_args')
FINAL = ToolDefinition(name='final_result', kind='output', parameters_json_schema=obj({'r': {'type': 'string'}}, ['r']))
FINAL_B = ToolDefinition(
    name='final_result_b', kind='output', parameters_json_schema=obj({'r': {'type': 'integer'}}, ['r'])
)
FINAL_WRAPPED = ToolDefinition(
    name='final_result',
    kind='output',
    outer_typed_dict_key='response',
    parameters_json_schema=obj({'response': {'type': 'integer'}}, ['response']),
)

TEXT_PARAMS = ModelRequestParameters(function_tools=[ADD, ECHO, NO_ARGS])
TOOL_PARAMS = ModelRequestParameters(
    function_tools=[ADD, ECHO], output_mode='tool', output_tools=[FINAL, FINAL_B], allow_text_output=False
)

PROMPT = ModelRequest(parts=[UserPromptPart('hello world')])


def after_calls(*results: ToolReturnPart | RetryPromptPart) -> list[ModelMessage]:
    """A conversation where the model called tools and the agent sent back `results`."""
    return [PROMPT, ModelResponse(parts=[ToolCallPart('add', {'a': 0, 'b': 0})]), ModelRequest(parts=list(results))]


def test_init_repr_and_names():
    model = TestModel()
    assert repr(model) == snapshot(
        "TestModel(call_tools='all', custom_output_text=None, custom_output_args=None, seed=0, last_model_request_parameters=None)"
    )
    assert (model.model_name, model.system, model.base_url, model.settings) == ('test', 'test', None, None)
    assert model.profile == ModelProfile()
    assert model == TestModel()
    assert model != TestModel(seed=1)

    custom = TestModel(call_tools=['add'], seed=3, model_name='custom', settings={'temperature': 0.5})
    assert repr(custom) == snapshot(
        "TestModel(call_tools=['add'], custom_output_text=None, custom_output_args=None, seed=3, last_model_request_parameters=None)"
    )
    assert (custom.model_name, custom.settings) == ('custom', {'temperature': 0.5})
    profile = ModelProfile(supports_json_schema_output=True)
    assert TestModel(profile=profile).profile is profile


async def test_first_request_calls_every_function_tool():
    model = TestModel()
    response = await model.request([PROMPT], None, TEXT_PARAMS)
    assert response == snapshot(
        ModelResponse(
            parts=[
                ToolCallPart('add', {'a': 0, 'b': 0}, tool_call_id='pyd_ai_tool_call_id__add'),
                ToolCallPart('echo', {'text': 'a'}, tool_call_id='pyd_ai_tool_call_id__echo'),
                ToolCallPart('no_args', {}, tool_call_id='pyd_ai_tool_call_id__no_args'),
            ],
            usage=RequestUsage(input_tokens=52, output_tokens=13),
            model_name='test',
            timestamp=IS_NOW,
        )
    )
    assert (response.provider_name, response.finish_reason) == (None, None)
    assert model.last_model_request_parameters == TEXT_PARAMS


async def test_call_tools_chooses_tools_in_the_given_order():
    response = await TestModel(call_tools=['echo', 'add']).request([PROMPT], None, TEXT_PARAMS)
    assert response.parts == snapshot(
        [
            ToolCallPart('echo', {'text': 'a'}, tool_call_id='pyd_ai_tool_call_id__echo'),
            ToolCallPart('add', {'a': 0, 'b': 0}, tool_call_id='pyd_ai_tool_call_id__add'),
        ]
    )


@pytest.mark.parametrize('messages', [pytest.param([PROMPT], id='prompt'), pytest.param([], id='no messages')])
async def test_call_tools_empty_answers_at_once(messages: list[ModelMessage]):
    response = await TestModel(call_tools=[]).request(messages, None, TEXT_PARAMS)
    assert response.parts == snapshot([TextPart('success (no tool calls)')])


async def test_call_tools_unknown_name():
    with pytest.raises(KeyError, match='missing'):
        await TestModel(call_tools=['missing']).request([PROMPT], None, TEXT_PARAMS)


@pytest.mark.parametrize(
    'messages',
    [
        pytest.param([], id='no messages'),
        pytest.param([ModelRequest(parts=[SystemPromptPart('be brief')]), PROMPT], id='two requests'),
    ],
)
async def test_tools_are_called_until_the_model_has_responded(messages: list[ModelMessage]):
    response = await TestModel(call_tools=['no_args']).request(messages, None, TEXT_PARAMS)
    assert response.parts == snapshot([ToolCallPart('no_args', {}, tool_call_id='pyd_ai_tool_call_id__no_args')])


async def test_answer_is_json_of_all_tool_returns():
    messages: list[ModelMessage] = [
        *after_calls(ToolReturnPart('add', 1), ToolReturnPart('echo', 'x y')),
        ModelResponse(parts=[ToolCallPart('add', {'a': 1, 'b': 2})]),
        ModelRequest(parts=[ToolReturnPart('add', {'sum': [3, None]}), UserPromptPart('and then?')]),
    ]
    response = await TestModel().request(messages, None, TEXT_PARAMS)
    assert response == snapshot(
        ModelResponse(
            parts=[TextPart('{"add":{"sum":[3,null]},"echo":"x y"}')],
            usage=RequestUsage(input_tokens=61, output_tokens=22),
            model_name='test',
            timestamp=IS_NOW,
        )
    )


async def test_answer_without_tool_returns():
    messages: list[ModelMessage] = [PROMPT, ModelResponse(parts=[TextPart('hi')]), PROMPT]
    response = await TestModel().request(messages, None, TEXT_PARAMS)
    assert response.parts == snapshot([TextPart('success (no tool calls)')])


async def test_custom_output_text():
    model = TestModel(custom_output_text='The answer.')
    response = await model.request(after_calls(ToolReturnPart('add', 0)), None, TEXT_PARAMS)
    assert response.parts == snapshot([TextPart('The answer.')])


async def test_empty_custom_output_text_is_used():
    response = await TestModel(custom_output_text='').request(after_calls(), None, TEXT_PARAMS)
    assert response.parts == snapshot([TextPart('')])


async def test_output_tool_with_generated_args():
    response = await TestModel().request(after_calls(ToolReturnPart('add', 0)), None, TOOL_PARAMS)
    assert response == snapshot(
        ModelResponse(
            parts=[ToolCallPart('final_result', {'r': 'a'}, tool_call_id='pyd_ai_tool_call_id__final_result')],
            usage=RequestUsage(input_tokens=53, output_tokens=11),
            model_name='test',
            timestamp=IS_NOW,
        )
    )


async def test_seed_picks_output_tool_and_args():
    response = await TestModel(seed=5).request(after_calls(), None, TOOL_PARAMS)
    assert response.parts == snapshot(
        [ToolCallPart('final_result_b', {'r': 5}, tool_call_id='pyd_ai_tool_call_id__final_result_b')]
    )


async def test_custom_output_args():
    response = await TestModel(custom_output_args={'r': 'z'}).request(after_calls(), None, TOOL_PARAMS)
    assert response.parts == snapshot(
        [ToolCallPart('final_result', {'r': 'z'}, tool_call_id='pyd_ai_tool_call_id__final_result')]
    )


async def test_custom_output_args_are_wrapped_for_the_first_output_tool():
    params = ModelRequestParameters(output_mode='tool', output_tools=[FINAL_WRAPPED, FINAL_B], allow_text_output=False)
    first = await TestModel(custom_output_args=7).request(after_calls(), None, params)
    assert first.parts == snapshot(
        [ToolCallPart('final_result', {'response': 7}, tool_call_id='pyd_ai_tool_call_id__final_result')]
    )
    # The seed picks the second tool, but the arguments keep the first tool's wrapping.
    second = await TestModel(custom_output_args=7, seed=1).request(after_calls(), None, params)
    assert second.parts == snapshot(
        [ToolCallPart('final_result_b', {'response': 7}, tool_call_id='pyd_ai_tool_call_id__final_result_b')]
    )


async def test_custom_output_args_take_precedence_over_text():
    params = ModelRequestParameters(output_mode='tool', output_tools=[FINAL], allow_text_output=True)
    response = await TestModel(custom_output_args={'r': 'z'}).request(after_calls(), None, params)
    assert response.parts == snapshot(
        [ToolCallPart('final_result', {'r': 'z'}, tool_call_id='pyd_ai_tool_call_id__final_result')]
    )


async def test_text_allowed_beside_output_tools():
    params = ModelRequestParameters(output_mode='tool', output_tools=[FINAL], allow_text_output=True)
    response = await TestModel().request(after_calls(ToolReturnPart('add', 0)), None, params)
    assert response.parts == snapshot([TextPart('{"add":0}')])


async def test_no_text_and_no_output_tools_answers_text():
    params = ModelRequestParameters(output_mode='tool', allow_text_output=False)
    response = await TestModel().request([PROMPT], None, params)
    assert response.parts == snapshot([TextPart('success (no tool calls)')])


async def test_prompted_output_is_answered_with_text():
    params = ModelRequestParameters(
        output_mode='prompted',
        output_object=OutputObjectDefinition(json_schema=obj({'a': {'type': 'integer'}}, ['a']), name='Foo'),
        prompted_output_template='Reply with {schema}',
    )
    response = await TestModel(custom_output_text='{"a": 5}').request([PROMPT], None, params)
    assert response.parts == snapshot([TextPart('{"a": 5}')])


async def test_function_tool_retry_calls_the_tool_again_with_fresh_ids():
    messages = after_calls(
        ToolReturnPart('echo', 'ok'),
        RetryPromptPart('bad', tool_name='add'),
        RetryPromptPart('bad again', tool_name='add'),
    )
    response = await TestModel().request(messages, None, TOOL_PARAMS)
    assert response == snapshot(
        ModelResponse(
            parts=[ToolCallPart('add', {'a': 0, 'b': 0}, tool_call_id=FRESH_ID)],
            usage=RequestUsage(input_tokens=70, output_tokens=12),
            model_name='test',
            timestamp=IS_NOW,
        )
    )


async def test_output_tool_retries_call_each_retried_output_tool():
    messages = after_calls(
        RetryPromptPart('bad', tool_name='final_result_b'),
        RetryPromptPart('bad', tool_name='echo'),
        RetryPromptPart('bad', tool_name='final_result'),
    )
    response = await TestModel().request(messages, None, TOOL_PARAMS)
    assert response.parts == snapshot(
        [
            ToolCallPart('echo', {'text': 'a'}, tool_call_id=FRESH_ID),
            ToolCallPart('final_result', {'r': 'a'}, tool_call_id='pyd_ai_tool_call_id__final_result'),
            ToolCallPart('final_result_b', {'r': 0}, tool_call_id='pyd_ai_tool_call_id__final_result_b'),
        ]
    )


async def test_output_tool_retry_with_custom_args():
    messages = after_calls(RetryPromptPart('bad', tool_name='final_result_b'))
    response = await TestModel(custom_output_args={'r': 9}).request(messages, None, TOOL_PARAMS)
    assert response.parts == snapshot(
        [ToolCallPart('final_result_b', {'r': 9}, tool_call_id='pyd_ai_tool_call_id__final_result_b')]
    )


@pytest.mark.parametrize(
    ('model', 'retry'),
    [
        pytest.param(TestModel(), RetryPromptPart('Fix the text.'), id='output validation retry'),
        pytest.param(TestModel(), RetryPromptPart('Unknown tool name', tool_name='missing'), id='unknown tool'),
        pytest.param(
            TestModel(call_tools=[]), RetryPromptPart('bad', tool_name='add'), id='tool not called by the model'
        ),
    ],
)
async def test_retries_for_no_known_tool_give_an_empty_response(model: TestModel, retry: RetryPromptPart):
    response = await model.request(after_calls(retry), None, TEXT_PARAMS)
    assert response.parts == []


async def test_retry_in_an_earlier_request_is_ignored():
    messages = [*after_calls(RetryPromptPart('bad', tool_name='add')), ModelRequest(parts=[ToolReturnPart('add', 3)])]
    response = await TestModel().request(messages, None, TEXT_PARAMS)
    assert response.parts == snapshot([TextPart('{"add":3}')])


async def test_last_message_must_be_a_request():
    messages: list[ModelMessage] = [PROMPT, ModelResponse(parts=[TextPart('hi')])]
    with pytest.raises(AssertionError, match=re.escape('Expected last message to be a `ModelRequest`.')):
        await TestModel().request(messages, None, TEXT_PARAMS)


async def test_custom_output_text_needs_text_output():
    model = TestModel(custom_output_text='text')
    with pytest.raises(AssertionError, match=re.escape('Plain response not allowed, but `custom_output_text` is set.')):
        await model.request([PROMPT], None, TOOL_PARAMS)
    assert model.last_model_request_parameters == TOOL_PARAMS


async def test_custom_output_text_and_args_conflict():
    model = TestModel(custom_output_text='text', custom_output_args={'r': 'z'})
    with pytest.raises(
        AssertionError, match=re.escape('Cannot set both `custom_output_text` and `custom_output_args`.')
    ):
        await model.request([PROMPT], None, TEXT_PARAMS)


async def test_prompt_parts_and_earlier_responses_count_towards_usage():
    messages: list[ModelMessage] = [
        ModelRequest(parts=[SystemPromptPart('be brief'), UserPromptPart('hello world')], instructions='not counted'),
        ModelResponse(parts=[TextPart('one two three')]),
        ModelRequest(parts=[UserPromptPart('again')]),
    ]
    response = await TestModel().request(messages, None, TEXT_PARAMS)
    assert response.usage == snapshot(RequestUsage(input_tokens=55, output_tokens=7))


def tool_with(schema: dict[str, Any]) -> ToolDefinition:
    return ToolDefinition(name='t', parameters_json_schema=schema)


def field(schema: dict[str, Any]) -> dict[str, Any]:
    return obj({'f': schema}, ['f'])


@pytest.mark.parametrize(
    ('schema', 'expected'),
    [
        pytest.param(field({'type': 'integer'}), [{'f': 0}, {'f': 1}, {'f': 7}, {'f': 100}], id='integer'),
        pytest.param(field({'type': 'number'}), [{'f': 0.0}, {'f': 1.0}, {'f': 7.0}, {'f': 100.0}], id='number'),
        pytest.param(field({'type': 'boolean'}), [{'f': False}, {'f': True}, {'f': True}, {'f': False}], id='boolean'),
        pytest.param(field({'type': 'null'}), [{'f': None}] * 4, id='null'),
        pytest.param(field({'type': 'string'}), [{'f': 'a'}, {'f': 'b'}, {'f': 'h'}, {'f': 'ag'}], id='string'),
        pytest.param(field({}), [{'f': 'a'}, {'f': 'b'}, {'f': 'h'}, {'f': 'ag'}], id='untyped is a string'),
        pytest.param(
            field({'type': 'string', 'minLength': 3}),
            [{'f': 'aaa'}, {'f': 'bbb'}, {'f': 'hhh'}, {'f': 'agagag'}],
            id='string min length',
        ),
        pytest.param(field({'type': 'string', 'minLength': 0}), [{'f': ''}] * 4, id='string min length 0'),
        pytest.param(field({'type': 'string', 'maxLength': 0}), [{'f': ''}] * 4, id='string max length 0'),
        pytest.param(
            field({'type': 'string', 'format': 'date'}),
            [{'f': '2024-01-01'}, {'f': '2024-01-02'}, {'f': '2024-01-08'}, {'f': '2024-04-10'}],
            id='date',
        ),
        pytest.param(
            field({'type': 'integer', 'minimum': 5}), [{'f': 5}, {'f': 6}, {'f': 12}, {'f': 105}], id='minimum'
        ),
        pytest.param(
            field({'type': 'integer', 'maximum': -5}), [{'f': -5}, {'f': -6}, {'f': -12}, {'f': -105}], id='maximum'
        ),
        pytest.param(
            field({'type': 'integer', 'exclusiveMinimum': 5, 'exclusiveMaximum': 10}),
            [{'f': 6}, {'f': 7}, {'f': 7}, {'f': 7}],
            id='exclusive range',
        ),
        pytest.param(
            field({'type': 'number', 'minimum': 1, 'maximum': 10}),
            [{'f': 1.0}, {'f': 2.0}, {'f': 8.0}, {'f': 2.0}],
            id='number range',
        ),
        pytest.param(field({'enum': ['x', 'y', 'z']}), [{'f': 'x'}, {'f': 'y'}, {'f': 'y'}, {'f': 'y'}], id='enum'),
        pytest.param(field({'const': 'k', 'enum': ['x']}), [{'f': 'k'}] * 4, id='const'),
        pytest.param(
            field({'const': 0, 'type': 'string'}), [{'f': 'a'}, {'f': 'b'}, {'f': 'h'}, {'f': 'ag'}], id='falsy const'
        ),
        pytest.param(
            field({'anyOf': [{'type': 'integer'}, {'type': 'string'}]}),
            [{'f': 0}, {'f': 'b'}, {'f': 'h'}, {'f': 100}],
            id='anyOf',
        ),
        pytest.param(
            field({'type': 'array', 'items': {'type': 'integer'}}),
            [{'f': [0]}, {'f': [1]}, {'f': [7]}, {'f': [100]}],
            id='array',
        ),
        pytest.param(field({'type': 'array'}), [{'f': list[Any]()}] * 4, id='array without items'),
        pytest.param(
            field({'type': 'array', 'items': {'type': 'integer'}, 'minItems': 2}),
            [{'f': [0, 0]}, {'f': [1, 1]}, {'f': [7, 7]}, {'f': [100, 100]}],
            id='array min items',
        ),
        pytest.param(
            field({'type': 'array', 'items': {'type': 'integer'}, 'maxItems': 0}),
            [{'f': list[Any]()}] * 4,
            id='array max items 0',
        ),
        pytest.param(
            field(
                {
                    'type': 'array',
                    'prefixItems': [{'type': 'integer'}, {'type': 'string'}],
                    'items': {'type': 'boolean'},
                }
            ),
            [{'f': [0, 'a', False]}, {'f': [1, 'b', True]}, {'f': [7, 'h', True]}, {'f': [100, 'ag', False]}],
            id='array prefix items',
        ),
        pytest.param(
            field({'type': 'array', 'prefixItems': [{'type': 'integer'}], 'minItems': 3}),
            [{'f': [0, 'a', 'a']}, {'f': [1, 'b', 'b']}, {'f': [7, 'h', 'h']}, {'f': [100, 'ag', 'ag']}],
            id='array prefix items filled to min items',
        ),
        pytest.param(
            obj({'a': {'type': 'integer'}, 'b': {'type': 'string', 'default': 'x'}}, ['a']),
            [{'a': 0}, {'a': 1}, {'a': 7}, {'a': 100}],
            id='only required properties',
        ),
        pytest.param(
            field({'type': 'object', 'additionalProperties': {'type': 'integer'}}),
            [{'f': {'additionalProperty': n}} for n in (0, 1, 7, 100)],
            id='additional properties',
        ),
        pytest.param(
            obj({'additionalProperty': {'type': 'integer'}}, ['additionalProperty']) | {'additionalProperties': True},
            [
                {'additionalProperty': n, 'additionalProperty_': c}
                for n, c in ((0, 'a'), (1, 'b'), (7, 'h'), (100, 'ag'))
            ],
            id='additional property name clash',
        ),
        pytest.param(
            field({'$ref': '#/$defs/Inner'}) | {'$defs': {'Inner': obj({'z': {'type': 'boolean'}}, ['z'])}},
            [{'f': {'z': False}}, {'f': {'z': True}}, {'f': {'z': True}}, {'f': {'z': False}}],
            id='ref',
        ),
    ],
)
def test_gen_tool_args(schema: dict[str, Any], expected: list[Any]):
    assert [TestModel(seed=seed).gen_tool_args(tool_with(schema)) for seed in (0, 1, 7, 100)] == expected


def test_gen_tool_args_long_strings_cycle_through_characters():
    seeds = (25, 26, 51, 52, 61, 62, 93, 94, 188, 8836, 10000, -1)
    strings = [TestModel(seed=seed).gen_tool_args(tool_with({'type': 'string'})) for seed in seeds]
    assert strings == snapshot(['z', 'A', 'Z', '0', '9', '!', '~', 'aa', 'ba', '~aa', 'laK', '~'])


def test_gen_tool_args_unknown_type():
    with pytest.raises(NotImplementedError, match=r"Unknown type: \['string', 'null'\], please submit a PR"):
        TestModel().gen_tool_args(tool_with(field({'type': ['string', 'null']})))
