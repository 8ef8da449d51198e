from __future__ import annotations

from dataclasses import fields

import pytest
from inline_snapshot import snapshot
from pydantic import TypeAdapter, ValidationError
from pydantic_ai.exceptions import UsageLimitExceeded
from pydantic_ai.usage import (
    RequestUsage,
    RunUsage,
    Usage,  # pyright: ignore[reportDeprecated] -- the deprecated class is tested
    UsageLimits,
)


def test_fields_are_keyword_only():
    assert {cls.__name__: [(f.name, f.kw_only) for f in fields(cls)] for cls in (RequestUsage, RunUsage)} == snapshot(
        {
            'RequestUsage': [
                ('input_tokens', True),
                ('cache_write_tokens', True),
                ('cache_read_tokens', True),
                ('output_tokens', True),
                ('input_audio_tokens', True),
                ('cache_audio_read_tokens', True),
                ('output_audio_tokens', True),
                ('details', True),
            ],
            'RunUsage': [
                ('input_tokens', True),
                ('cache_write_tokens', True),
                ('cache_read_tokens', True),
                ('output_tokens', True),
                ('input_audio_tokens', True),
                ('cache_audio_read_tokens', True),
                ('output_audio_tokens', True),
                ('details', True),
                ('requests', True),
                ('tool_calls', True),
            ],
        }
    )


def test_repr_shows_only_set_values():
    assert repr(RequestUsage()) == snapshot('RequestUsage()')
    assert repr(RunUsage()) == snapshot('RunUsage()')
    assert repr(RequestUsage(input_tokens=3, output_tokens=4, cache_read_tokens=1, details={'a': 1})) == snapshot(
        "RequestUsage(input_tokens=3, cache_read_tokens=1, output_tokens=4, details={'a': 1})"
    )
    # A detail with a zero count is still a set value.
    assert repr(RunUsage(details={'a': 0}, requests=2)) == snapshot("RunUsage(details={'a': 0}, requests=2)")
    assert repr(UsageLimits()) == snapshot('UsageLimits()')
    assert repr(UsageLimits(request_limit=None, count_tokens_before_request=True)) == snapshot(
        'UsageLimits(request_limit=None, count_tokens_before_request=True)'
    )


def test_request_usage_add_and_incr():
    first = RequestUsage(input_tokens=3, output_tokens=4, details={'a': 1})
    second = RequestUsage(input_tokens=1, cache_write_tokens=2, details={'a': 2, 'b': 3})
    assert first + second == snapshot(
        RequestUsage(input_tokens=4, cache_write_tokens=2, output_tokens=4, details={'a': 3, 'b': 3})
    )
    assert first.total_tokens == 7
    assert first.requests == 1

    total = RequestUsage()
    total.incr(first)
    total.incr(second)
    assert total == first + second
    assert total.details is not first.details


def test_run_usage_add_and_incr():
    run = RunUsage(requests=1, tool_calls=2, input_tokens=5, details={'x': 1})
    # `+` makes a new object and never changes either operand, details included.
    assert run + RequestUsage(input_tokens=3, output_tokens=4, details={'x': 1}) == snapshot(
        RunUsage(input_tokens=8, output_tokens=4, details={'x': 2}, requests=1, tool_calls=2)
    )
    assert run + RunUsage(requests=2, tool_calls=1, output_tokens=1) == snapshot(
        RunUsage(input_tokens=5, output_tokens=1, details={'x': 1}, requests=3, tool_calls=3)
    )

    run.incr(RequestUsage(output_tokens=2))
    assert run == snapshot(RunUsage(input_tokens=5, output_tokens=2, details={'x': 1}, requests=1, tool_calls=2))
    run.incr(RunUsage(requests=1, tool_calls=1))
    assert (run.requests, run.tool_calls, run.total_tokens) == (2, 3, 7)


def test_has_values():
    assert not RunUsage().has_values()
    assert not RequestUsage().has_values()
    assert RunUsage(requests=1).has_values()
    assert RunUsage(tool_calls=1).has_values()
    assert RunUsage(details={'a': 0}).has_values()
    assert RequestUsage(output_audio_tokens=1).has_values()


def test_opentelemetry_attributes():
    assert RunUsage().opentelemetry_attributes() == {}
    usage = RunUsage(input_tokens=8, output_tokens=4, cache_read_tokens=1, details={'x': 4, 'zero': 0}, requests=3)
    assert usage.opentelemetry_attributes() == snapshot(
        {
            'gen_ai.usage.input_tokens': 8,
            'gen_ai.usage.output_tokens': 4,
            'gen_ai.usage.details.x': 4,
            'gen_ai.usage.details.cache_read_tokens': 1,
        }
    )
    audio = RequestUsage(cache_write_tokens=1, input_audio_tokens=3, cache_audio_read_tokens=4, output_audio_tokens=5)
    assert audio.opentelemetry_attributes() == snapshot(
        {
            'gen_ai.usage.details.cache_write_tokens': 1,
            'gen_ai.usage.details.input_audio_tokens': 3,
            'gen_ai.usage.details.cache_audio_read_tokens': 4,
            'gen_ai.usage.details.output_audio_tokens': 5,
        }
    )


def test_deprecated_token_names():
    usage = RunUsage(input_tokens=8, output_tokens=4)
    with pytest.warns(DeprecationWarning, match='`request_tokens` is deprecated, use `input_tokens` instead'):
        assert usage.request_tokens == 8  # pyright: ignore[reportDeprecated] -- testing the deprecated name
    with pytest.warns(DeprecationWarning, match='`response_tokens` is deprecated, use `output_tokens` instead'):
        assert usage.response_tokens == 4  # pyright: ignore[reportDeprecated] -- testing the deprecated name


def test_usage_is_a_deprecated_run_usage():
    with pytest.warns(DeprecationWarning, match='`Usage` is deprecated, use `RunUsage` instead'):
        usage = Usage(requests=1)  # pyright: ignore[reportDeprecated] -- testing the deprecated class
    assert isinstance(usage, RunUsage)
    assert repr(usage) == snapshot('Usage(requests=1)')
    assert usage != RunUsage(requests=1)


def test_request_usage_json_round_trip():
    ta = TypeAdapter(RequestUsage)
    usage = RequestUsage(input_tokens=3, cache_read_tokens=1, output_tokens=4, details={'reasoning_tokens': 2})
    dumped = ta.dump_json(usage)
    assert dumped == snapshot(
        b'{"input_tokens":3,"cache_write_tokens":0,"cache_read_tokens":1,"output_tokens":4,"input_audio_tokens":0,"cache_audio_read_tokens":0,"output_audio_tokens":0,"details":{"reasoning_tokens":2}}'
    )
    assert ta.validate_json(dumped) == usage


def test_request_usage_accepts_legacy_names():
    ta = TypeAdapter(RequestUsage)
    legacy = ta.validate_python({'request_tokens': 5, 'response_tokens': 6, 'details': None})
    assert legacy == RequestUsage(input_tokens=5, output_tokens=6)
    # The current name wins over the legacy one.
    assert ta.validate_python({'input_tokens': 5, 'request_tokens': 6}) == RequestUsage(input_tokens=5)


def test_run_usage_json_round_trip():
    ta = TypeAdapter(RunUsage)
    usage = RunUsage(input_tokens=8, output_tokens=4, details={'x': 1}, requests=3, tool_calls=2)
    assert ta.validate_json(ta.dump_json(usage)) == usage
    with pytest.raises(ValidationError, match='Input should be a valid dictionary'):
        ta.validate_python({'details': None})


def test_usage_limits_deprecated_names():
    assert UsageLimits(request_tokens_limit=5) == UsageLimits(input_tokens_limit=5)
    assert UsageLimits(response_tokens_limit=5) == UsageLimits(output_tokens_limit=5)
    assert UsageLimits(response_tokens_limit=5, output_tokens_limit=3).output_tokens_limit == 3
    limits = UsageLimits(input_tokens_limit=2, output_tokens_limit=3)
    with pytest.warns(DeprecationWarning, match='`request_tokens_limit` is deprecated, use `input_tokens_limit`'):
        assert limits.request_tokens_limit == 2  # pyright: ignore[reportDeprecated] -- testing the deprecated name
    with pytest.warns(DeprecationWarning, match='`response_tokens_limit` is deprecated, use `output_tokens_limit`'):
        assert limits.response_tokens_limit == 3  # pyright: ignore[reportDeprecated] -- testing the deprecated name


def test_has_token_limits():
    assert not UsageLimits().has_token_limits()
    assert UsageLimits(input_tokens_limit=1).has_token_limits()
    assert UsageLimits(output_tokens_limit=1).has_token_limits()
    assert UsageLimits(total_tokens_limit=1).has_token_limits()


def test_check_before_request():
    UsageLimits(request_limit=1).check_before_request(RunUsage(requests=0))
    UsageLimits(request_limit=None).check_before_request(RunUsage(requests=100))
    # Output tokens are not checked before a request: the next response has not used any yet.
    UsageLimits(output_tokens_limit=1).check_before_request(RunUsage(output_tokens=5))
    UsageLimits(input_tokens_limit=10).check_before_request(RunUsage(input_tokens=10))

    with pytest.raises(UsageLimitExceeded, match=r'^The next request would exceed the request_limit of 1$'):
        UsageLimits(request_limit=1, input_tokens_limit=5).check_before_request(RunUsage(requests=1, input_tokens=9))
    with pytest.raises(
        UsageLimitExceeded, match=r'^The next request would exceed the input_tokens_limit of 10 \(input_tokens=11\)$'
    ):
        UsageLimits(input_tokens_limit=10, total_tokens_limit=5).check_before_request(RunUsage(input_tokens=11))
    with pytest.raises(
        UsageLimitExceeded, match=r'^The next request would exceed the total_tokens_limit of 10 \(total_tokens=11\)$'
    ):
        UsageLimits(total_tokens_limit=10).check_before_request(RunUsage(input_tokens=10, output_tokens=1))


def test_check_tokens():
    UsageLimits(input_tokens_limit=10).check_tokens(RunUsage(input_tokens=10))
    with pytest.raises(UsageLimitExceeded, match=r'^Exceeded the input_tokens_limit of 10 \(input_tokens=51\)$'):
        UsageLimits(input_tokens_limit=10, output_tokens_limit=1).check_tokens(
            RunUsage(input_tokens=51, output_tokens=5)
        )
    with pytest.raises(UsageLimitExceeded, match=r'^Exceeded the output_tokens_limit of 1 \(output_tokens=5\)$'):
        UsageLimits(output_tokens_limit=1, total_tokens_limit=1).check_tokens(RunUsage(output_tokens=5))
    with pytest.raises(UsageLimitExceeded, match=r'^Exceeded the total_tokens_limit of 0 \(total_tokens=5\)$'):
        UsageLimits(total_tokens_limit=0).check_tokens(RunUsage(output_tokens=5))


def test_check_before_tool_call():
    UsageLimits(tool_calls_limit=1).check_before_tool_call(RunUsage(tool_calls=1))
    UsageLimits().check_before_tool_call(RunUsage(tool_calls=100))
    with pytest.raises(
        UsageLimitExceeded,
        match=r'^The next tool call\(s\) would exceed the tool_calls_limit of 0 \(tool_calls=1\)\.$',
    ):
        UsageLimits(tool_calls_limit=0).check_before_tool_call(RunUsage(tool_calls=1))
