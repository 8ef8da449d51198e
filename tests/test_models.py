"""The `Model` base: profiles, labels, request preparation and the instructions a model sends."""

from __future__ import annotations

import re

import pytest
from inline_snapshot import snapshot
from pydantic_ai.exceptions import UserError
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart
from pydantic_ai.models import ModelRequestParameters, OutputMode
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel
from pydantic_ai.output import OutputObjectDefinition
from pydantic_ai.profiles import DEFAULT_PROFILE, ModelProfile
from pydantic_ai.tools import ToolDefinition

OUTPUT_TOOL = ToolDefinition(name='o', kind='output')
OUTPUT_OBJECT = OutputObjectDefinition(json_schema={'type': 'object'}, name='N')
NATIVE = ModelProfile(supports_json_schema_output=True)


def reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[TextPart('x')])


@pytest.mark.parametrize(
    ('model_name', 'label'),
    [
        ('test', 'Test'),
        ('gpt-4o', 'GPT 4o'),
        ('claude-3-5-sonnet', 'Claude 3.5 Sonnet'),
        ('my-model_x', 'My Model_x'),
        ('o1', 'O1'),
    ],
)
def test_label(model_name: str, label: str):
    assert TestModel(model_name=model_name).label == label


def test_function_model_label():
    assert FunctionModel(reply).label == 'Function:reply:'


def test_profiles():
    assert TestModel().profile is DEFAULT_PROFILE
    assert TestModel(profile=NATIVE).profile is NATIVE
    # A function model supports every output mode unless told otherwise.
    assert FunctionModel(reply).profile.supports_json_schema_output
    # A profile function gets the model name; when it does not know the name, the plain default applies.
    named = FunctionModel(reply, profile=lambda name: ModelProfile(thinking_tags=(name, name)))
    assert named.profile.thinking_tags == ('function:reply:', 'function:reply:')
    assert FunctionModel(reply, profile=lambda name: None).profile == ModelProfile()


def prepare(profile: ModelProfile, params: ModelRequestParameters) -> ModelRequestParameters:
    settings, prepared = TestModel(profile=profile, settings={'temperature': 1}).prepare_request(None, params)
    assert settings == {'temperature': 1}
    return prepared


def test_prepare_auto_takes_the_profile_default():
    params = ModelRequestParameters(output_mode='auto', output_tools=[OUTPUT_TOOL], output_object=OUTPUT_OBJECT)
    assert prepare(ModelProfile(), params) == ModelRequestParameters(
        output_mode='tool', output_tools=[OUTPUT_TOOL], allow_text_output=False
    )
    native_default = ModelProfile(default_structured_output_mode='native', supports_json_schema_output=True)
    assert prepare(native_default, params) == ModelRequestParameters(output_mode='native', output_object=OUTPUT_OBJECT)
    assert prepare(ModelProfile(default_structured_output_mode='prompted'), params) == ModelRequestParameters(
        output_mode='prompted',
        output_object=OUTPUT_OBJECT,
        prompted_output_template=DEFAULT_PROFILE.prompted_output_template,
    )


def test_prepare_clears_what_the_mode_does_not_use():
    def everything(mode: OutputMode) -> ModelRequestParameters:
        return ModelRequestParameters(
            output_mode=mode, output_object=OUTPUT_OBJECT, output_tools=[OUTPUT_TOOL], prompted_output_template='X'
        )

    assert prepare(NATIVE, everything('tool')) == ModelRequestParameters(output_mode='tool', output_tools=[OUTPUT_TOOL])
    assert prepare(NATIVE, everything('native')) == ModelRequestParameters(
        output_mode='native', output_object=OUTPUT_OBJECT, prompted_output_template='X'
    )
    assert prepare(NATIVE, everything('prompted')) == ModelRequestParameters(
        output_mode='prompted', output_object=OUTPUT_OBJECT, prompted_output_template='X'
    )
    assert prepare(NATIVE, everything('image')) == ModelRequestParameters(output_mode='image')
    assert prepare(NATIVE, everything('text')) == ModelRequestParameters()


def test_prepare_native_schema_in_instructions():
    profile = ModelProfile(supports_json_schema_output=True, native_output_requires_schema_in_instructions=True)
    params = ModelRequestParameters(output_mode='native', output_object=OUTPUT_OBJECT)
    assert prepare(profile, params).prompted_output_template == DEFAULT_PROFILE.prompted_output_template
    assert prepare(NATIVE, params).prompted_output_template is None


def test_prepare_native_unsupported():
    params = ModelRequestParameters(output_mode='native', output_object=OUTPUT_OBJECT)
    with pytest.raises(UserError, match=re.escape('Native structured output is not supported by this model.')):
        prepare(ModelProfile(), params)


def test_prompted_output_instructions():
    def instructions(template: str | None, output_object: OutputObjectDefinition | None = OUTPUT_OBJECT) -> str | None:
        params = ModelRequestParameters(output_object=output_object, prompted_output_template=template)
        return params.prompted_output_instructions

    assert instructions('A {schema} B') == snapshot('A {"type": "object", "title": "N"} B')
    assert instructions('A B') == snapshot('A B\n\n{"type": "object", "title": "N"}')
    described = OutputObjectDefinition(json_schema={}, description='D')
    assert instructions('{schema}', described) == snapshot('{"description": "D"}')
    assert instructions(None) is None
    assert instructions('A', None) is None


def test_get_instructions_adds_prompted_output():
    class Model(TestModel):
        def sent_instructions(self, messages: list[ModelMessage], params: ModelRequestParameters) -> str | None:
            return self._get_instructions(messages, params)

    model = Model()
    messages: list[ModelMessage] = [ModelRequest(parts=[], instructions='Be brief.')]
    prompted = ModelRequestParameters(output_mode='prompted', output_object=OUTPUT_OBJECT, prompted_output_template='T')
    assert model.sent_instructions(messages, prompted) == snapshot('Be brief.\n\nT\n\n{"type": "object", "title": "N"}')
    assert model.sent_instructions([], prompted) == snapshot('T\n\n{"type": "object", "title": "N"}')
    assert model.sent_instructions(messages, ModelRequestParameters(output_mode='prompted')) == 'Be brief.'
    assert model.sent_instructions(messages, ModelRequestParameters(output_mode='tool')) == 'Be brief.'
