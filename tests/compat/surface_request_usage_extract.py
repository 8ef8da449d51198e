# pyright: basic, reportDeprecated=false
# A program run under upstream and this package to compare what they print; it calls APIs dynamically.
"""`RequestUsage.extract` on raw provider responses, through genai-prices."""

from pydantic_ai.usage import RequestUsage

data = {
    'id': 'x',
    'usage': {
        'prompt_tokens': 10,
        'completion_tokens': 5,
        'total_tokens': 15,
        'prompt_tokens_details': {'cached_tokens': 3},
    },
}
print(
    RequestUsage.extract(
        data, provider='openai', provider_url='https://api.openai.com/v1', provider_fallback='openai', api_flavor='chat'
    )
)
print(
    RequestUsage.extract(
        data,
        provider='weird',
        provider_url='https://x',
        provider_fallback='openai',
        api_flavor='chat',
        details={'a': 1},
    )
)
print(
    RequestUsage.extract(
        {'usage': {'input_tokens': 4, 'output_tokens': 2}},
        provider='anthropic',
        provider_url='',
        provider_fallback='anthropic',
    )
)
print(
    RequestUsage.extract(
        {'nothing': 1}, provider='openai', provider_url='', provider_fallback='openai', api_flavor='chat'
    )
)
print(RequestUsage.extract({'nothing': 1}, provider='nope', provider_url='', provider_fallback='nope2'))
