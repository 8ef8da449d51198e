"""A plain run on TestModel with one tool: the output, the history's repr and its JSON."""

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessagesTypeAdapter

agent = Agent('test', instructions='Be brief.')


@agent.tool_plain
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


result = agent.run_sync('What is 1 + 2?')
print(repr(result.output))
for message in result.all_messages():
    print(repr(message))
print(ModelMessagesTypeAdapter.dump_json(result.all_messages()).decode()[:0] or 'json ok')
print(result.usage())
