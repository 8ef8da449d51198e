from __future__ import annotations

import inspect

import pytest
from inline_snapshot import snapshot
from pydantic import TypeAdapter, ValidationError
from pydantic_ai.exceptions import (
    AgentRunError,
    ApprovalRequired,
    CallDeferred,
    ContentFilterError,
    FallbackExceptionGroup,
    IncompleteToolCall,
    ModelAPIError,
    ModelHTTPError,
    ModelRetry,
    UnexpectedModelBehavior,
    UsageLimitExceeded,
    UserError,
)


def test_signatures():
    assert {
        cls.__name__: str(inspect.signature(cls))
        for cls in (ModelRetry, CallDeferred, ApprovalRequired, UserError, AgentRunError, UnexpectedModelBehavior)
    } == snapshot(
        {
            'ModelRetry': "(message: 'str')",
            # `context` and `deferred_tool_requests` are this project's additions (nested calls, saved state).
            'CallDeferred': (
                "(metadata: 'dict[str, Any] | None' = None, context: 'Any' = None, "
                "deferred_tool_requests: 'DeferredToolRequests | None' = None)"
            ),
            'ApprovalRequired': "(metadata: 'dict[str, Any] | None' = None, context: 'Any' = None)",
            'UserError': "(message: 'str')",
            'AgentRunError': "(message: 'str')",
            'UnexpectedModelBehavior': "(message: 'str', body: 'str | None' = None)",
        }
    )
    assert str(inspect.signature(ModelAPIError)) == snapshot("(model_name: 'str', message: 'str')")
    assert str(inspect.signature(ModelHTTPError)) == snapshot(
        "(status_code: 'int', model_name: 'str', body: 'object | None' = None)"
    )


def test_user_error_and_agent_run_error():
    error = UserError('bad thing')
    assert (str(error), repr(error), error.message) == ('bad thing', "UserError('bad thing')", 'bad thing')
    assert isinstance(error, RuntimeError)

    run_error = UsageLimitExceeded('too much')
    assert (str(run_error), repr(run_error)) == ('too much', "UsageLimitExceeded('too much')")
    assert isinstance(run_error, AgentRunError)


def test_unexpected_model_behavior_without_body():
    error = UnexpectedModelBehavior('weird')
    assert (str(error), repr(error), error.body) == ('weird', "UnexpectedModelBehavior('weird')", None)
    # An empty body is kept but not shown.
    assert str(UnexpectedModelBehavior('weird', '')) == 'weird'


def test_unexpected_model_behavior_with_body():
    plain = UnexpectedModelBehavior('weird', 'plain body')
    assert str(plain) == snapshot("""\
weird, body:
plain body\
""")
    assert repr(plain) == "UnexpectedModelBehavior('weird')"
    assert str(UnexpectedModelBehavior('weird', '{bad json')).endswith('body:\n{bad json')

    json_body = UnexpectedModelBehavior('weird', '{"a": 1, "b": [1,2]}')
    assert json_body.body == snapshot("""\
{
  "a": 1,
  "b": [
    1,
    2
  ]
}\
""")
    assert str(json_body) == f'weird, body:\n{json_body.body}'
    assert UnexpectedModelBehavior('weird', '"str"').body == '"str"'


def test_unexpected_model_behavior_subclasses():
    assert str(ContentFilterError('filtered', '{"x": 1}')) == snapshot("""\
filtered, body:
{
  "x": 1
}\
""")
    incomplete = IncompleteToolCall('incomplete')
    assert (repr(incomplete), incomplete.body) == ("IncompleteToolCall('incomplete')", None)
    assert isinstance(incomplete, UnexpectedModelBehavior)


def test_model_api_errors():
    api_error = ModelAPIError('gpt-x', 'connection refused')
    assert (str(api_error), repr(api_error), api_error.model_name) == (
        'connection refused',
        "ModelAPIError('connection refused')",
        'gpt-x',
    )

    http_error = ModelHTTPError(429, 'gpt-x', {'error': 'rate'})
    assert str(http_error) == snapshot("status_code: 429, model_name: gpt-x, body: {'error': 'rate'}")
    assert repr(http_error) == snapshot(
        "ModelHTTPError(\"status_code: 429, model_name: gpt-x, body: {'error': 'rate'}\")"
    )
    assert (http_error.status_code, http_error.model_name, http_error.body) == (429, 'gpt-x', {'error': 'rate'})
    assert str(ModelHTTPError(500, 'gpt-x')) == 'status_code: 500, model_name: gpt-x, body: None'
    assert isinstance(http_error, ModelAPIError)


def test_deferral_signals_carry_metadata():
    deferred = CallDeferred(metadata={'a': 1})
    assert (repr(deferred), str(deferred), deferred.args, deferred.metadata) == ('CallDeferred()', '', (), {'a': 1})
    assert CallDeferred().metadata is None

    approval = ApprovalRequired({'x': 2})
    assert (repr(approval), approval.metadata) == ('ApprovalRequired()', {'x': 2})
    assert ApprovalRequired().metadata is None
    assert not isinstance(approval, RuntimeError)


def test_model_retry_equality():
    assert ModelRetry('a') == ModelRetry('a')
    assert ModelRetry('a') != ModelRetry('b')
    assert ModelRetry('a') != 'a'
    assert hash(ModelRetry('a')) == hash(ModelRetry('a'))
    retry = ModelRetry('try again')
    assert (str(retry), repr(retry), retry.message) == ('try again', "ModelRetry('try again')", 'try again')


def test_model_retry_serialization():
    ta = TypeAdapter(ModelRetry)
    assert ta.dump_python(ModelRetry('x')) == {'message': 'x', 'kind': 'model-retry'}
    assert ta.dump_json(ModelRetry('x')) == b'{"message":"x","kind":"model-retry"}'
    assert ta.validate_json('{"message": "m", "kind": "model-retry"}') == ModelRetry('m')
    assert ta.validate_python({'message': 'm', 'kind': 'model-retry'}) == ModelRetry('m')
    with pytest.raises(ValidationError, match=r'kind\n  Field required'):
        ta.validate_json('{"message": "m"}')
    with pytest.raises(ValidationError, match="Input should be 'model-retry'"):
        ta.validate_json('{"message": "m", "kind": "other"}')
    assert ta.json_schema() == snapshot(
        {
            'properties': {
                'message': {'title': 'Message', 'type': 'string'},
                'kind': {'const': 'model-retry', 'title': 'Kind', 'type': 'string'},
            },
            'required': ['message', 'kind'],
            'type': 'object',
        }
    )


def test_fallback_exception_group():
    group = FallbackExceptionGroup('all failed', [ValueError('a'), UserError('b')])
    assert str(group) == 'all failed (2 sub-exceptions)'
    assert [repr(e) for e in group.exceptions] == ["ValueError('a')", "UserError('b')"]
    assert isinstance(group, ExceptionGroup)
