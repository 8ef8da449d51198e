# pyright: basic, reportDeprecated=false
# A program run under upstream and this package to compare what they print; it calls APIs dynamically.
"""`pydantic_ai.models` helpers: ALLOW_MODEL_REQUESTS, token counting, HTTP client, user agent, infer_model."""

import asyncio
import inspect

from pydantic_ai import Agent, UsageLimits, models
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.models import (
    DEFAULT_HTTP_TIMEOUT,
    ModelRequestParameters,
    cached_async_http_client,
    check_allow_model_requests,
    get_user_agent,
    infer_model,
    override_allow_model_requests,
)
from pydantic_ai.models.function import FunctionModel
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.models.test import TestModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.usage import RequestUsage

print(models.ALLOW_MODEL_REQUESTS, DEFAULT_HTTP_TIMEOUT, get_user_agent())
print(inspect.signature(override_allow_model_requests), inspect.signature(cached_async_http_client))
models.ALLOW_MODEL_REQUESTS = False
try:
    check_allow_model_requests()
except RuntimeError as e:
    print('RuntimeError', e)
with override_allow_model_requests(True):
    check_allow_model_requests()
    print('allowed inside', models.ALLOW_MODEL_REQUESTS)
print('after', models.ALLOW_MODEL_REQUESTS)
print(Agent(TestModel()).run_sync('x').output)
print(Agent(FunctionModel(lambda m, i: ModelResponse(parts=[TextPart('f')]))).run_sync('x').output)
openai_model = OpenAIChatModel('gpt-4o', provider=OpenAIProvider(api_key='x', base_url='http://127.0.0.1:9'))
try:
    Agent(openai_model).run_sync('x')
except RuntimeError as e:
    print('RuntimeError', e)
models.ALLOW_MODEL_REQUESTS = True

client = cached_async_http_client()
print(client is cached_async_http_client(), client is cached_async_http_client(provider='openai'))
print(client.timeout, client.headers['user-agent'])
asyncio.run(client.aclose())
print(cached_async_http_client() is client)

messages: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart('hello world')])]
for model in (TestModel(), FunctionModel(lambda m, i: ModelResponse(parts=[TextPart('x')]))):
    try:
        asyncio.run(model.count_tokens(messages, None, ModelRequestParameters()))
    except NotImplementedError as e:
        print('NotImplementedError', e)


class Counting(FunctionModel):
    async def count_tokens(self, messages, model_settings, model_request_parameters) -> RequestUsage:
        print('counting', len(messages))
        return RequestUsage(input_tokens=7 * len(messages))


counting = Counting(lambda m, i: ModelResponse(parts=[TextPart('counted')]))
for limits in (
    UsageLimits(count_tokens_before_request=True),
    UsageLimits(count_tokens_before_request=True, input_tokens_limit=5),
    UsageLimits(count_tokens_before_request=True, total_tokens_limit=5),
    UsageLimits(input_tokens_limit=5),
):
    try:
        print(Agent(counting).run_sync('hello', usage_limits=limits).usage())
    except Exception as e:
        print(type(e).__name__, e)
try:
    Agent(TestModel()).run_sync('x', usage_limits=UsageLimits(count_tokens_before_request=True))
except NotImplementedError as e:
    print('NotImplementedError', e)

print(infer_model('test'))
seen = []


def factory(name: str) -> OpenAIProvider:
    seen.append(name)
    return OpenAIProvider(api_key='k', base_url='http://127.0.0.1:9/v1')


print(type(infer_model('openai:gpt-4o', provider_factory=factory)).__name__, seen)
