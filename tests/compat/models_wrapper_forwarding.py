"""`WrapperModel` / `InstrumentedModel`: count_tokens, names, attributes are the wrapped model's; base_url and the builtin tool classmethod are not."""

import asyncio
from typing import Any

from pydantic_ai import Agent
from pydantic_ai.builtin_tools import AbstractBuiltinTool, WebSearchTool
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.models import Model, ModelRequestParameters
from pydantic_ai.models.instrumented import InstrumentedModel
from pydantic_ai.models.wrapper import WrapperModel
from pydantic_ai.settings import ModelSettings
from pydantic_ai.usage import RequestUsage, UsageLimits


class Counting(Model):
    client = 'the-client'

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        tools = [type(t).__name__ for t in model_request_parameters.builtin_tools]
        return ModelResponse(parts=[TextPart(f'ok {tools}')], usage=RequestUsage(input_tokens=3, output_tokens=2))

    async def count_tokens(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> RequestUsage:
        return RequestUsage(input_tokens=42)

    @classmethod
    def supported_builtin_tools(cls) -> frozenset[type[AbstractBuiltinTool]]:
        return frozenset({WebSearchTool})

    @property
    def base_url(self) -> str | None:
        return 'http://models.example/v1'

    @property
    def model_name(self) -> str:
        return 'counting'

    @property
    def system(self) -> str:
        return 'acme'


def show(label: str, value: Any) -> None:
    print(label, repr(value))


async def main() -> None:
    messages: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart('hi')])]
    for wrapper in (WrapperModel(Counting()), InstrumentedModel(Counting())):
        name = type(wrapper).__name__
        show(f'{name} count_tokens', await wrapper.count_tokens(messages, None, ModelRequestParameters()))
        show(f'{name} base_url', wrapper.base_url)
        show(f'{name} supported_builtin_tools', sorted(t.__name__ for t in wrapper.supported_builtin_tools()))
        show(f'{name} client', wrapper.client)
        show(f'{name} names', (wrapper.model_name, wrapper.system))
        agent = Agent(wrapper, builtin_tools=[WebSearchTool()])
        try:
            limits = UsageLimits(input_tokens_limit=50, count_tokens_before_request=True)
            result = await agent.run('hi', usage_limits=limits)
            show(f'{name} output', result.output)
        except Exception as exc:
            show(f'{name} builtin', f'{type(exc).__name__}: {exc}')
        limited = Agent(wrapper)
        try:
            await limited.run('hi', usage_limits=UsageLimits(input_tokens_limit=10, count_tokens_before_request=True))
        except Exception as exc:
            show(f'{name} limit', f'{type(exc).__name__}: {exc}')


asyncio.run(main())
