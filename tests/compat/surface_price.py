# pyright: basic, reportDeprecated=false
# A program run under upstream and this package to compare what they print; it calls APIs dynamically.
import warnings
from datetime import UTC, datetime

from pydantic_ai.messages import ModelResponse, TextPart
from pydantic_ai.usage import RequestUsage

warnings.simplefilter('ignore', DeprecationWarning)
r = ModelResponse(
    parts=[TextPart('x')],
    usage=RequestUsage(input_tokens=1000, output_tokens=500, cache_read_tokens=100),
    model_name='gpt-4o',
    provider_name='openai',
    timestamp=datetime(2025, 6, 1, tzinfo=UTC),
)
p = r.price()
print(type(p).__module__, type(p).__name__)
print(p.total_price, p.input_price, p.output_price, p.model.id, p.provider.id)
print(r.cost().total_price)
r2 = ModelResponse(parts=[], usage=RequestUsage(input_tokens=10), model_name='gpt-4o')
try:
    print(r2.price().total_price, r2.price().provider.id)
except Exception as e:
    print(type(e).__name__, e)
r3 = ModelResponse(parts=[], usage=RequestUsage(input_tokens=10), model_name='nope-model', provider_name='openai')
try:
    print(r3.price())
except Exception as e:
    print(type(e).__name__, e)
r4 = ModelResponse(parts=[], usage=RequestUsage(input_tokens=10))
try:
    print(r4.price())
except Exception as e:
    print(type(e).__name__, e)
r5 = ModelResponse(parts=[], usage=RequestUsage(input_tokens=10), model_name='test', provider_name=None)
try:
    print(r5.price())
except Exception as e:
    print(type(e).__name__, e)
r6 = ModelResponse(
    parts=[],
    usage=RequestUsage(input_tokens=1000),
    model_name='claude-sonnet-4-5',
    provider_name='anthropic',
    provider_url='https://api.anthropic.com',
)
try:
    print(r6.price().total_price)
except Exception as e:
    print(type(e).__name__, e)
