"""A rough token count for the fake models, which have no tokenizer.

`TestModel` and `FunctionModel` report a usage so that usage limits and usage snapshots behave as they
would with a real model. The numbers are not meant to be accurate, only stable: users' snapshot tests pin
them, so the rules below are part of the compatibility contract.

- Input: a fixed 50 tokens of overhead, plus the words of every system prompt, user prompt, tool return
  and retry prompt of every request in the conversation. Binary user content counts one token per byte;
  URL content and cache points count nothing. Instructions are not counted.
- Output: the words of every text and thinking part of every response in the conversation (the new
  response included), plus, for each tool call, one token and the words of its JSON arguments.

A "word" is a run of characters between whitespace, double quotes, commas, full stops and colons.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import assert_never

from .messages import (
    BinaryContent,
    BuiltinToolCallPart,
    BuiltinToolReturnPart,
    FilePart,
    ModelMessage,
    ModelRequest,
    ModelRequestPart,
    ModelResponsePart,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserContent,
    UserPromptPart,
)
from .usage import RequestUsage

__all__ = ()

_REQUEST_OVERHEAD_TOKENS = 50
_WORD_SEPARATORS = re.compile(r'[\s",.:]+')


def estimate_usage(messages: Sequence[ModelMessage]) -> RequestUsage:
    """Estimate the usage of a conversation whose last message is the new response."""
    input_tokens = _REQUEST_OVERHEAD_TOKENS
    output_tokens = 0
    for message in messages:
        if isinstance(message, ModelRequest):
            input_tokens += sum(_request_part_tokens(part) for part in message.parts)
        else:
            output_tokens += sum(_response_part_tokens(part) for part in message.parts)
    return RequestUsage(input_tokens=input_tokens, output_tokens=output_tokens)


def count_tokens(text: str) -> int:
    """The number of words in `text`; an empty string has none."""
    if not text:
        return 0
    return _count_words(text)


def _count_words(text: str) -> int:
    # Whitespace-only text still counts as one (empty) word: the split of '' yields one item.
    return len(_WORD_SEPARATORS.split(text.strip()))


def _request_part_tokens(part: ModelRequestPart) -> int:
    match part:
        case SystemPromptPart():
            return count_tokens(part.content)
        case UserPromptPart():
            return _user_content_tokens(part.content)
        case ToolReturnPart():
            return count_tokens(part.model_response_str())
        case RetryPromptPart():
            return count_tokens(part.model_response())
        case _:
            assert_never(part)


def _user_content_tokens(content: str | Sequence[UserContent]) -> int:
    if isinstance(content, str):
        return count_tokens(content)
    tokens = 0
    for item in content:
        # Items of a multi-part prompt are counted without the empty-text rule, so `''` counts as one.
        if isinstance(item, str):
            tokens += _count_words(item)
        elif isinstance(item, BinaryContent):
            tokens += len(item.data)
    return tokens


def _response_part_tokens(part: ModelResponsePart) -> int:
    match part:
        case TextPart() | ThinkingPart():
            return count_tokens(part.content)
        case ToolCallPart() | BuiltinToolCallPart():
            return 1 + count_tokens(part.args_as_json_str())
        case BuiltinToolReturnPart():
            return count_tokens(part.model_response_str())
        case FilePart():
            # As upstream: a file counts one token per byte.
            return len(part.content.data)
        case _:
            assert_never(part)
