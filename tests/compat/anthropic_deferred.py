# pyright: reportUnusedFunction=false
"""AnthropicModel and OpenAIResponsesModel with the two-run approval flow: the request bodies of both runs."""

import asyncio
import gc
import json
import re
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent))

from _anthropic_server import message, text, tool_use
from _openai_server import ChatServer, chat_server
from _responses_server import function_call, response
from _responses_server import message as responses_message
from anthropic import AsyncAnthropic
from openai import AsyncOpenAI
from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, ToolDenied
from pydantic_ai.models import Model
from pydantic_ai.models.anthropic import AnthropicModel
from pydantic_ai.models.openai import OpenAIResponsesModel
from pydantic_ai.providers.anthropic import AnthropicProvider
from pydantic_ai.providers.openai import OpenAIProvider

# SDK clients left to the garbage collector warn about their sockets at random points; that is noise here.
warnings.filterwarnings('ignore', category=ResourceWarning)


def out(value: object) -> None:
    print(re.sub(r'127\.0\.0\.1:\d+', '127.0.0.1:PORT', str(value)))


async def flow(server: ChatServer, model: Model) -> None:
    agent = Agent(model, output_type=[str, DeferredToolRequests])

    @agent.tool_plain(requires_approval=True)
    def delete_file(path: str) -> str:
        """Delete a file."""
        return f'deleted {path}'

    first = await agent.run('Clean up.')
    assert isinstance(first.output, DeferredToolRequests)
    out(first.output.approvals)
    results = DeferredToolResults()
    for call in first.output.approvals:
        keep = call.args_as_dict()['path'] == 'keep.txt'
        results.approvals[call.tool_call_id] = ToolDenied('Keep it.') if keep else True
    second = await agent.run(message_history=first.all_messages(), deferred_tool_results=results)
    # The history itself is the agent core's business (checked elsewhere); the bodies sent are the models'.
    out(second.output)
    out(repr(second.all_messages()[-1]))
    for body in server.bodies():
        out(json.dumps(body, sort_keys=True))
    server.requests.clear()


async def main(server: ChatServer) -> None:
    base = server.base_url.removesuffix('/v1')
    async with AsyncAnthropic(base_url=base, api_key='k', max_retries=0) as client:
        model = AnthropicModel('claude-sonnet-4-5', provider=AnthropicProvider(anthropic_client=client))
        calls = [
            tool_use('delete_file', {'path': 'a.tmp'}, 'toolu_a'),
            tool_use('delete_file', {'path': 'keep.txt'}, 'toolu_k'),
        ]
        server.add_json(message(text('Deleting.'), *calls, stop_reason='tool_use'))
        server.add_json(message(text('Done.')))
        await flow(server, model)
    async with AsyncOpenAI(base_url=server.base_url, api_key='k', max_retries=0) as openai_client:
        responses = OpenAIResponsesModel('gpt-5', provider=OpenAIProvider(openai_client=openai_client))
        calls = [
            function_call('delete_file', '{"path": "a.tmp"}', 'call_a'),
            function_call('delete_file', '{"path": "keep.txt"}', 'call_k'),
        ]
        server.add_json(response(*calls))
        server.add_json(response(responses_message('Done.'), id='resp_2'))
        await flow(server, responses)


with chat_server() as server:
    asyncio.run(main(server))
gc.collect()
