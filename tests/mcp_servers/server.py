"""A small MCP server for the tests, built on the `mcp` SDK's server API.

Run it as `python server.py` (stdio) or `python server.py streamable-http PORT` (streamable HTTP on 127.0.0.1),
`python server.py sse PORT` (SSE). `python server.py exit` exits at once; `python server.py silent` never answers.
Any `--tag=...` argument is ignored, so tests can mark the process and look for it afterwards.
"""

from __future__ import annotations

import base64
import os
import sys
import time
from pathlib import Path

import anyio
from mcp.server.fastmcp import Context, FastMCP
from mcp.types import (
    AudioContent,
    BlobResourceContents,
    EmbeddedResource,
    ImageContent,
    LoggingLevel,
    ResourceLink,
    SamplingMessage,
    TextContent,
    TextResourceContents,
    ToolAnnotations,
)
from pydantic import AnyUrl, BaseModel

# A 1x1 transparent PNG.
PNG = base64.b64decode(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='
)

server = FastMCP('test-server', instructions='Use these tools to test the MCP client.', log_level='ERROR')
_notes: dict[str, str] = {'todo': 'buy milk'}


class Weather(BaseModel):
    city: str
    temperature: float
    conditions: str


@server.tool()
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@server.tool()
def get_weather(city: str) -> Weather:
    """The weather in a city."""
    return Weather(city=city, temperature=21.5, conditions='sunny')


@server.tool(structured_output=False)
def echo(text: str) -> str:
    """Echo the text back."""
    return text


@server.tool(structured_output=False)
def image() -> ImageContent:
    """A tiny PNG image."""
    return ImageContent(type='image', data=base64.b64encode(PNG).decode(), mimeType='image/png')


@server.tool(structured_output=False)
def audio() -> AudioContent:
    """A few bytes of audio."""
    return AudioContent(type='audio', data=base64.b64encode(b'RIFF').decode(), mimeType='audio/wav')


@server.tool(structured_output=False)
def text_and_image() -> list[TextContent | ImageContent]:
    """Some text and an image."""
    return [
        TextContent(type='text', text='Here is the image:'),
        ImageContent(type='image', data=base64.b64encode(PNG).decode(), mimeType='image/png'),
    ]


@server.tool(structured_output=False)
def embedded() -> list[EmbeddedResource]:
    """A text resource and a binary resource, embedded."""
    return [
        EmbeddedResource(
            type='resource',
            resource=TextResourceContents(uri=AnyUrl('note://todo'), text='buy milk', mimeType='text/plain'),
        ),
        EmbeddedResource(
            type='resource',
            resource=BlobResourceContents(
                uri=AnyUrl('file:///pixel.png'), blob=base64.b64encode(PNG).decode(), mimeType='image/png'
            ),
        ),
    ]


@server.tool(structured_output=False)
def link() -> ResourceLink:
    """A link to the `note://todo` resource."""
    return ResourceLink(type='resource_link', uri=AnyUrl('note://todo'), name='todo', mimeType='text/plain')


@server.tool()
def wrapped(value: int) -> dict[str, int]:
    """A structured result whose only key is `result`."""
    return {'result': value}


@server.tool(structured_output=False)
def json_text() -> str:
    """Text that happens to be JSON."""
    return '{"a": 1, "b": [2, 3]}'


@server.tool()
def fail(message: str) -> str:
    """Always fails with the message."""
    raise ValueError(message)


@server.tool()
async def slow(seconds: float, marker: str = '') -> str:
    """Sleep, then answer; on cancellation, write 'cancelled' to the `marker` file if one is given."""
    try:
        await anyio.sleep(seconds)
    except anyio.get_cancelled_exc_class():
        if marker:
            Path(marker).write_text('cancelled')
        raise
    return 'done'


@server.tool()
async def summarize(text: str, ctx: Context) -> str:  # pyright: ignore[reportMissingTypeArgument,reportUnknownParameterType]
    """Ask the client's model to summarize the text (a sampling request)."""
    result = await ctx.session.create_message(
        [SamplingMessage(role='user', content=TextContent(type='text', text=text))],
        max_tokens=100,
        system_prompt='Summarize.',
    )
    assert isinstance(result.content, TextContent)
    return result.content.text


class Confirmation(BaseModel):
    confirm: bool


@server.tool()
async def chat(ctx: Context) -> str:  # pyright: ignore[reportMissingTypeArgument,reportUnknownParameterType]
    """A sampling request with a conversation, an image, a temperature and stop sequences."""
    image_content = ImageContent(type='image', data=base64.b64encode(PNG).decode(), mimeType='image/png')
    result = await ctx.session.create_message(
        [
            SamplingMessage(role='user', content=TextContent(type='text', text='Hello')),
            SamplingMessage(role='assistant', content=TextContent(type='text', text='Hi!')),
            SamplingMessage(role='user', content=image_content),
        ],
        max_tokens=50,
        temperature=0.5,
        stop_sequences=['END'],
    )
    assert isinstance(result.content, TextContent)
    return f'{result.model}: {result.content.text}'


@server.tool()
async def add_resource(name: str, ctx: Context) -> str:  # pyright: ignore[reportMissingTypeArgument,reportUnknownParameterType]
    """Add a note resource, and tell the client that the resource list changed."""
    _notes[name] = f'note {name}'

    def read() -> str:
        return _notes[name]

    server.resource(f'note://added/{name}', name=name)(read)
    await ctx.session.send_resource_list_changed()
    return 'added'


@server.tool()
async def ask(question: str, ctx: Context) -> str:  # pyright: ignore[reportMissingTypeArgument,reportUnknownParameterType]
    """Ask the user a question (an elicitation request)."""
    result = await ctx.elicit(question, Confirmation)
    if result.action == 'accept':
        return f'confirmed={result.data.confirm}'
    return result.action


@server.tool()
async def log(message: str, ctx: Context) -> str:  # pyright: ignore[reportMissingTypeArgument,reportUnknownParameterType]
    """Send the message as a log notification at info level."""
    await ctx.info(message)
    return 'logged'


@server.tool()
async def add_tool(name: str, ctx: Context) -> str:  # pyright: ignore[reportMissingTypeArgument,reportUnknownParameterType]
    """Add a tool that returns its name, and tell the client that the tool list changed."""

    def new_tool() -> str:
        return name

    server.add_tool(new_tool, name=name, description='An added tool.')
    await ctx.session.send_tool_list_changed()
    return 'added'


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def read_note(name: str) -> str:
    """Read a note."""
    return _notes.get(name, '')


@server.tool(annotations=ToolAnnotations(destructiveHint=True))
def delete_note(name: str) -> str:
    """Delete a note."""
    _notes.pop(name, None)
    return 'deleted'


@server.tool()
def pid() -> int:
    """The server's process id."""
    return os.getpid()


@server.resource('note://todo', mime_type='text/plain', description='The todo note.')
def todo_note() -> str:
    """The todo note."""
    return _notes.get('todo', '')


@server.resource('note://{name}', mime_type='text/plain')
def any_note(name: str) -> str:
    """A note by name."""
    return _notes.get(name, '')


# FastMCP has no `logging/setLevel` handler of its own; the low-level server takes one.
@server._mcp_server.set_logging_level()
async def set_logging_level(level: LoggingLevel) -> None:
    """Accept any level: the test server logs whatever its tools send."""


def main(argv: list[str]) -> None:
    """Serve on the transport named by the arguments."""
    # A `--tag=...` argument only marks the process, so a test can find it in the process table.
    argv = [arg for arg in argv if not arg.startswith('--tag=')]
    mode = argv[0] if argv else 'stdio'
    if mode == 'exit':
        sys.exit(3)
    if mode == 'silent':
        # Never answer: keep stdin open and just wait to be killed.
        time.sleep(3600)
    if mode in ('streamable-http', 'sse'):
        server.settings.port = int(argv[1])
        server.run(mode)
    else:
        server.run('stdio')


if __name__ == '__main__':
    main(sys.argv[1:])
