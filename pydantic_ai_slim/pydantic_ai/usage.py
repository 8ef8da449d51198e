"""Token and request accounting, and the limits a run can be given."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from functools import cache
from typing import Annotated, Any

from pydantic import AliasChoices, BeforeValidator, Field
from typing_extensions import deprecated

from . import _utils
from .exceptions import UsageLimitExceeded

__all__ = ('RequestUsage', 'RunUsage', 'Usage', 'UsageBase', 'UsageLimits')

# The token counters shared by request and run usage, in field order.
_TOKEN_FIELDS = (
    'input_tokens',
    'cache_write_tokens',
    'cache_read_tokens',
    'output_tokens',
    'input_audio_tokens',
    'cache_audio_read_tokens',
    'output_audio_tokens',
)
# The counters OpenTelemetry reports under `gen_ai.usage.details.*` rather than as first-class attributes.
_OTEL_DETAIL_FIELDS = tuple(name for name in _TOKEN_FIELDS if name not in ('input_tokens', 'output_tokens'))


def _empty_details(value: Any) -> Any:
    # Stored histories may hold `"details": null`; it means the same as no details.
    return value or {}


@dataclass(repr=False, kw_only=True)
class UsageBase:
    """The token counters common to `RequestUsage` and `RunUsage`."""

    input_tokens: Annotated[int, Field(validation_alias=AliasChoices('input_tokens', 'request_tokens'))] = 0
    """Tokens sent to the model."""
    cache_write_tokens: int = 0
    """Input tokens written to the provider's cache."""
    cache_read_tokens: int = 0
    """Input tokens read from the provider's cache."""
    output_tokens: Annotated[int, Field(validation_alias=AliasChoices('output_tokens', 'response_tokens'))] = 0
    """Tokens the model generated."""
    input_audio_tokens: int = 0
    """Audio input tokens."""
    cache_audio_read_tokens: int = 0
    """Audio input tokens read from the cache."""
    output_audio_tokens: int = 0
    """Audio output tokens."""

    @property
    @deprecated('`request_tokens` is deprecated, use `input_tokens` instead')
    def request_tokens(self) -> int:
        """Deprecated name of `input_tokens`."""
        return self.input_tokens

    @property
    @deprecated('`response_tokens` is deprecated, use `output_tokens` instead')
    def response_tokens(self) -> int:
        """Deprecated name of `output_tokens`."""
        return self.output_tokens

    @property
    def total_tokens(self) -> int:
        """Input plus output tokens."""
        return self.input_tokens + self.output_tokens

    def opentelemetry_attributes(self) -> dict[str, int]:
        """The non-zero counters as OpenTelemetry `gen_ai.usage.*` span attributes."""
        attributes: dict[str, int] = {}
        if self.input_tokens:
            attributes['gen_ai.usage.input_tokens'] = self.input_tokens
        if self.output_tokens:
            attributes['gen_ai.usage.output_tokens'] = self.output_tokens
        details: dict[str, int] = getattr(self, 'details', {})
        counts = [*details.items(), *((name, getattr(self, name)) for name in _OTEL_DETAIL_FIELDS)]
        for key, value in counts:
            if value:
                attributes[f'gen_ai.usage.details.{key}'] = value
        return attributes

    def has_values(self) -> bool:
        """Whether any counter (or detail) is set."""
        return any(getattr(self, name) for name in _field_names(type(self)))

    def __repr__(self) -> str:
        # Zero counters and empty details are noise in a usage repr, so only set values are shown.
        args = ', '.join(f'{f.name}={value!r}' for f in fields(self) if f.repr and (value := getattr(self, f.name)))
        return f'{type(self).__qualname__}({args})'


@cache
def _field_names(cls: type[UsageBase]) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))


def _add_into(
    target: UsageBase, other: UsageBase, target_details: dict[str, int], other_details: dict[str, int]
) -> None:
    for name in _TOKEN_FIELDS:
        setattr(target, name, getattr(target, name) + getattr(other, name))
    for key, value in other_details.items():
        target_details[key] = target_details.get(key, 0) + value


@dataclass(repr=False, kw_only=True)
class RequestUsage(UsageBase):
    """The tokens one model request and its response used."""

    details: Annotated[dict[str, int], BeforeValidator(_empty_details)] = field(default_factory=dict[str, int])
    """Provider-specific counts, e.g. reasoning tokens."""

    @property
    def requests(self) -> int:
        """Always 1: this is the usage of one request."""
        return 1

    def incr(self, incr_usage: RequestUsage) -> None:
        """Add another request usage into this one, in place."""
        _add_into(self, incr_usage, self.details, incr_usage.details)

    @classmethod
    def extract(
        cls,
        data: Any,
        *,
        provider: str,
        provider_url: str,
        provider_fallback: str,
        api_flavor: str = 'default',
        details: dict[str, Any] | None = None,
    ) -> RequestUsage:
        """The usage reported in a provider's raw response data, read with the `genai-prices` package.

        Args:
            data: The response data of the provider's API, as JSON data.
            provider: The provider's id.
            provider_url: The provider's base URL.
            provider_fallback: The id of a provider whose format to use if `provider` is not known, e.g. `'openai'`
                for an OpenAI-compatible server.
            api_flavor: The provider API's flavor, e.g. `'chat'` or `'responses'` for OpenAI.
            details: The `details` of the returned usage.

        Returns:
            The usage; empty (but with `details`) if none could be read.
        """
        # Imported here: the price data is only loaded by programs that use it.
        from genai_prices import extract_usage

        attempts: list[Callable[[], Any]] = [lambda: extract_usage(data, provider_id=provider, api_flavor=api_flavor)]
        if provider_url:
            attempts.append(lambda: extract_usage(data, provider_api_url=provider_url, api_flavor=api_flavor))
        attempts.append(lambda: extract_usage(data, provider_id=provider_fallback, api_flavor=api_flavor))
        for attempt in attempts:
            try:
                extracted = attempt()
            except Exception:
                # An unknown provider, or data without the usage fields: try the next, or give up.
                continue
            counts = {name: getattr(extracted.usage, name, None) or 0 for name in _TOKEN_FIELDS}
            return cls(**counts, details=details or {})
        return cls(details=details or {})

    def __add__(self, other: RequestUsage) -> RequestUsage:
        """The sum of two request usages, as a new object."""
        new = RequestUsage(**{name: getattr(self, name) for name in _TOKEN_FIELDS}, details=dict(self.details))
        new.incr(other)
        return new


@dataclass(repr=False, kw_only=True)
class RunUsage(UsageBase):
    """What a whole run used: tokens over all requests, the number of requests and of tool calls."""

    input_tokens: int = 0
    """Tokens sent to the model, over all requests."""
    cache_write_tokens: int = 0
    """Input tokens written to the provider's cache."""
    cache_read_tokens: int = 0
    """Input tokens read from the provider's cache."""
    output_tokens: int = 0
    """Tokens the model generated, over all requests."""
    input_audio_tokens: int = 0
    """Audio input tokens."""
    cache_audio_read_tokens: int = 0
    """Audio input tokens read from the cache."""
    output_audio_tokens: int = 0
    """Audio output tokens."""
    details: dict[str, int] = field(default_factory=dict[str, int])
    """Provider-specific counts, summed over all requests."""
    requests: int = 0
    """Model requests made."""
    tool_calls: int = 0
    """Function tool calls executed."""

    def incr(self, incr_usage: RunUsage | RequestUsage) -> None:
        """Add another usage into this one, in place; a run usage also adds its requests and tool calls."""
        if isinstance(incr_usage, RunUsage):
            self.requests += incr_usage.requests
            self.tool_calls += incr_usage.tool_calls
        _add_into(self, incr_usage, self.details, incr_usage.details)

    def __add__(self, other: RunUsage | RequestUsage) -> RunUsage:
        """The sum of this usage and another, as a new run usage."""
        new = RunUsage(
            **{name: getattr(self, name) for name in _TOKEN_FIELDS},
            details=dict(self.details),
            requests=self.requests,
            tool_calls=self.tool_calls,
        )
        new.incr(other)
        return new


@deprecated('`Usage` is deprecated, use `RunUsage` instead')
@dataclass(repr=False, kw_only=True)
class Usage(RunUsage):
    """Deprecated alias of `RunUsage`, kept for code written against older versions."""


@dataclass(repr=False, init=False, kw_only=True)
class UsageLimits:
    """Limits on what a run may use; a run that would go past one raises `UsageLimitExceeded`."""

    request_limit: int | None = 50
    """The most model requests a run may make."""
    tool_calls_limit: int | None = None
    """The most successful function tool calls a run may make."""
    input_tokens_limit: int | None = None
    """The most input tokens a run may use."""
    output_tokens_limit: int | None = None
    """The most output tokens a run may use."""
    total_tokens_limit: int | None = None
    """The most tokens, input plus output, a run may use."""
    count_tokens_before_request: bool = False
    """Ask the model to count input tokens before each request (for models that can)."""

    def __init__(
        self,
        *,
        request_limit: int | None = 50,
        tool_calls_limit: int | None = None,
        input_tokens_limit: int | None = None,
        output_tokens_limit: int | None = None,
        total_tokens_limit: int | None = None,
        count_tokens_before_request: bool = False,
        request_tokens_limit: int | None = None,
        response_tokens_limit: int | None = None,
    ):
        self.request_limit = request_limit
        self.tool_calls_limit = tool_calls_limit
        # The deprecated names are fallbacks; upstream treats a zero token limit like an unset one.
        self.input_tokens_limit = input_tokens_limit or request_tokens_limit
        self.output_tokens_limit = output_tokens_limit or response_tokens_limit
        self.total_tokens_limit = total_tokens_limit
        self.count_tokens_before_request = count_tokens_before_request

    @property
    @deprecated('`request_tokens_limit` is deprecated, use `input_tokens_limit` instead')
    def request_tokens_limit(self) -> int | None:
        """Deprecated name of `input_tokens_limit`."""
        return self.input_tokens_limit

    @property
    @deprecated('`response_tokens_limit` is deprecated, use `output_tokens_limit` instead')
    def response_tokens_limit(self) -> int | None:
        """Deprecated name of `output_tokens_limit`."""
        return self.output_tokens_limit

    def has_token_limits(self) -> bool:
        """Whether any token limit is set."""
        return any(
            limit is not None for limit in (self.input_tokens_limit, self.output_tokens_limit, self.total_tokens_limit)
        )

    def check_before_request(self, usage: RunUsage) -> None:
        """Raise if the next request would go past the request limit, or the input or total token limit."""
        if self.request_limit is not None and usage.requests >= self.request_limit:
            raise UsageLimitExceeded(f'The next request would exceed the request_limit of {self.request_limit}')
        checks = (
            ('input_tokens', self.input_tokens_limit, usage.input_tokens),
            ('total_tokens', self.total_tokens_limit, usage.total_tokens),
        )
        for name, limit, value in checks:
            if limit is not None and value > limit:
                raise UsageLimitExceeded(f'The next request would exceed the {name}_limit of {limit} ({name}={value})')

    def check_tokens(self, usage: RunUsage) -> None:
        """Raise if the usage is past a token limit."""
        checks = (
            ('input_tokens', self.input_tokens_limit, usage.input_tokens),
            ('output_tokens', self.output_tokens_limit, usage.output_tokens),
            ('total_tokens', self.total_tokens_limit, usage.total_tokens),
        )
        for name, limit, value in checks:
            if limit is not None and value > limit:
                raise UsageLimitExceeded(f'Exceeded the {name}_limit of {limit} ({name}={value})')

    def check_before_tool_call(self, projected_usage: RunUsage) -> None:
        """Raise if running the next tool calls would go past the tool call limit."""
        limit = self.tool_calls_limit
        if limit is not None and projected_usage.tool_calls > limit:
            raise UsageLimitExceeded(
                f'The next tool call(s) would exceed the tool_calls_limit of {limit} '
                f'(tool_calls={projected_usage.tool_calls}).'
            )

    __repr__ = _utils.dataclasses_no_defaults_repr
