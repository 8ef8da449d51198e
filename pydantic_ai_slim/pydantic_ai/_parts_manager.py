"""Turns the pieces a provider streams into the parts of a `ModelResponse`, and into part events.

A provider sends text, thinking and tool-call pieces tagged with its own id for the part they belong to (a
"vendor part id": a content index, an item id, ...). `ModelResponsePartsManager` keeps the parts in the
order they started, maps vendor ids to them, and returns the `PartStartEvent` / `PartDeltaEvent` for each
piece. `PartEndEvent`s are added by `StreamedResponse`, which sees where one part stops and the next begins.

Text and thinking pieces are kept as chunks and joined only when a part is read, so a long streamed text costs
the same per piece at its end as at its start.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any, TypeAlias

from . import _utils
from .exceptions import UnexpectedModelBehavior
from .messages import (
    ModelResponsePart,
    ModelResponseStreamEvent,
    PartDeltaEvent,
    PartStartEvent,
    ProviderDetailsDelta,
    TextPart,
    TextPartDelta,
    ThinkingPart,
    ThinkingPartDelta,
    ToolCallPart,
    ToolCallPartDelta,
)

__all__ = ('ManagedPart', 'ModelResponsePartsManager', 'VendorId')

VendorId: TypeAlias = Hashable
"""The provider's id for a part of a streamed response."""

ManagedPart: TypeAlias = ModelResponsePart | ToolCallPartDelta
"""A part being streamed: a response part, or a tool call whose name has not arrived yet."""


@dataclass(repr=False)
class ModelResponsePartsManager:
    """Builds the parts of a streamed response from provider pieces, and reports each change as an event."""

    _parts: list[ManagedPart] = field(default_factory=list[ManagedPart])
    _vendor_id_to_part_index: dict[VendorId, int] = field(default_factory=dict[VendorId, int])
    # Text appended to text and thinking parts that has not been joined into the part yet, by part index.
    _chunks: dict[int, list[str]] = field(default_factory=dict[int, list[str]])

    def get_parts(self) -> list[ModelResponsePart]:
        """The parts so far, leaving out tool calls whose name has not arrived."""
        self._join_all_chunks()
        return [part for part in self._parts if not isinstance(part, ToolCallPartDelta)]

    def get_part_by_vendor_id(self, vendor_id: VendorId) -> ManagedPart | None:
        """The part with this vendor id, if any."""
        index = self._vendor_id_to_part_index.get(vendor_id)
        return None if index is None else self._part_at(index)

    def handle_text_delta(
        self,
        *,
        vendor_part_id: VendorId | None,
        content: str,
        id: str | None = None,
        provider_name: str | None = None,
        provider_details: dict[str, Any] | None = None,
        thinking_tags: tuple[str, str] | None = None,
        ignore_leading_whitespace: bool = False,
    ) -> Iterator[ModelResponseStreamEvent]:
        """Add streamed text: to the part with this vendor id (or the last part, if it is text), or to a new part.

        Args:
            vendor_part_id: The provider's id of the part; `None` continues the last part if it is text.
            content: The text.
            id: The provider's id of the part, for a new part.
            provider_name: The provider that made the text.
            provider_details: Provider-specific details to merge into the part's.
            thinking_tags: Start and end tags that, sent as a whole piece, open and close a thinking part.
            ignore_leading_whitespace: Do not start a text part with whitespace only.

        Yields:
            The start of a new part, or the delta of an existing one; nothing for pieces that change nothing.

        Raises:
            UnexpectedModelBehavior: If the vendor id belongs to a part that is not text.
        """
        index = self._text_target(vendor_part_id)
        existing = None if index is None else self._parts[index]
        if thinking_tags is not None:
            start_tag, end_tag = thinking_tags
            if isinstance(existing, ThinkingPart):
                # Text between thinking tags is thinking; the end tag closes the part for this vendor id.
                if content == end_tag:
                    del self._vendor_id_to_part_index[vendor_part_id]
                    return
                yield from self.handle_thinking_delta(vendor_part_id=vendor_part_id, content=content)
                return
            if content == start_tag:
                yield self._start(vendor_part_id, ThinkingPart(content=''))
                return
        if existing is None:
            if ignore_leading_whitespace and not content.strip():
                return
            part = TextPart(content, id=id, provider_name=provider_name, provider_details=provider_details)
            yield self._start(vendor_part_id, part)
            return
        assert index is not None
        yield self._text_delta(index, content, provider_name, provider_details)

    def handle_thinking_delta(
        self,
        *,
        vendor_part_id: VendorId | None,
        content: str | None = None,
        id: str | None = None,
        signature: str | None = None,
        provider_name: str | None = None,
        provider_details: ProviderDetailsDelta = None,
    ) -> Iterator[ModelResponseStreamEvent]:
        """Add streamed thinking: to the part with this vendor id (or the last part, if it is thinking), or a new one.

        Args:
            vendor_part_id: The provider's id of the part; `None` continues the last part if it is thinking.
            content: Thinking text to append.
            id: The provider's id of the part, for a new part.
            signature: A new signature of the thinking.
            provider_name: The provider that made the thinking.
            provider_details: Details to merge into the part's, or a function computing them from the part's.

        Yields:
            The start of a new part, or the delta of an existing one; nothing for a piece that carries nothing.

        Raises:
            UnexpectedModelBehavior: If the vendor id belongs to a part that is not thinking, or a new part would
                be empty.
        """
        index = self._latest_index(vendor_part_id, ThinkingPart)
        if index is None:
            yield self._start(
                vendor_part_id, _new_thinking_part(content, id, signature, provider_name, provider_details)
            )
            return
        existing = self._part_at(index)
        if not isinstance(existing, ThinkingPart):
            raise UnexpectedModelBehavior(f'Cannot apply a thinking delta to existing_part={existing!r}')
        resolved_provider = _new_provider_name(existing, provider_name)
        if content is None and signature is None and provider_details is None and resolved_provider is None:
            return
        delta = ThinkingPartDelta(
            content_delta=content,
            signature_delta=signature,
            provider_name=resolved_provider,
            provider_details=provider_details,
        )
        updated = delta.apply(existing)
        assert isinstance(updated, ThinkingPart)
        self._parts[index] = updated
        yield PartDeltaEvent(index=index, delta=delta)

    def handle_tool_call_delta(
        self,
        *,
        vendor_part_id: VendorId | None,
        tool_name: str | None = None,
        args: str | dict[str, Any] | None = None,
        tool_call_id: str | None = None,
        provider_name: str | None = None,
        provider_details: dict[str, Any] | None = None,
    ) -> ModelResponseStreamEvent | None:
        """Add a streamed piece of a tool call: name text, argument JSON text (or a dict), or its id.

        A call is only reported once its name is known; until then its pieces are kept.

        Args:
            vendor_part_id: The provider's id of the call; `None` continues the last part if it is a tool call and
                no name is given.
            tool_name: Text to append to the tool name.
            args: JSON text to append to the arguments, or a dict to merge into them.
            tool_call_id: The call's id.
            provider_name: The provider that made the piece.
            provider_details: Provider-specific details to merge into the part's.

        Returns:
            The start of the call once its name is known, then deltas; `None` while the name is unknown.

        Raises:
            UnexpectedModelBehavior: If the vendor id belongs to a part that is not a tool call, or JSON text and
                dict arguments are mixed.
        """
        index = self._tool_call_target(vendor_part_id, tool_name)
        if index is None:
            delta = ToolCallPartDelta(
                tool_name_delta=tool_name,
                args_delta=args,
                tool_call_id=tool_call_id,
                provider_name=provider_name,
                provider_details=provider_details,
            )
            part = delta.as_part()
            new_index = self._append(part or delta, vendor_part_id)
            return None if part is None else PartStartEvent(index=new_index, part=part)
        existing = self._parts[index]
        assert isinstance(existing, ToolCallPart | ToolCallPartDelta)
        delta = ToolCallPartDelta(
            tool_name_delta=tool_name,
            args_delta=args,
            tool_call_id=tool_call_id,
            provider_name=_new_provider_name(existing, provider_name),
            provider_details=provider_details,
        )
        updated = delta.apply(existing)
        self._parts[index] = updated
        if not isinstance(updated, ToolCallPart):
            return None
        if isinstance(existing, ToolCallPartDelta):
            return PartStartEvent(index=index, part=updated)
        return PartDeltaEvent(index=index, delta=replace(delta, tool_call_id=updated.tool_call_id))

    def handle_tool_call_part(
        self,
        *,
        vendor_part_id: VendorId | None,
        tool_name: str,
        args: str | dict[str, Any] | None,
        tool_call_id: str | None = None,
        id: str | None = None,
        provider_name: str | None = None,
        provider_details: dict[str, Any] | None = None,
    ) -> ModelResponseStreamEvent:
        """Add a complete tool call, replacing the tool call with the same vendor id if there is one."""
        part = ToolCallPart(
            tool_name,
            args,
            tool_call_id or _utils.generate_tool_call_id(),
            id=id,
            provider_name=provider_name,
            provider_details=provider_details,
        )
        return self.handle_part(vendor_part_id=vendor_part_id, part=part)

    def handle_part(self, *, vendor_part_id: VendorId | None, part: ModelResponsePart) -> ModelResponseStreamEvent:
        """Add a complete part, replacing the part with the same vendor id if it is of the same kind."""
        index = None if vendor_part_id is None else self._vendor_id_to_part_index.get(vendor_part_id)
        if index is None or type(self._parts[index]) is not type(part):
            return PartStartEvent(index=self._append(part, vendor_part_id), part=part)
        self._chunks.pop(index, None)
        self._parts[index] = part
        return PartStartEvent(index=index, part=part)

    def _part_at(self, index: int) -> ManagedPart:
        """The part at `index`, with any pending text joined in."""
        chunks = self._chunks.pop(index, None)
        if chunks is not None:
            part = self._parts[index]
            assert isinstance(part, TextPart | ThinkingPart)
            self._parts[index] = replace(part, content=part.content + ''.join(chunks))
        return self._parts[index]

    def _join_all_chunks(self) -> None:
        for index in list(self._chunks):
            self._part_at(index)

    def _text_target(self, vendor_part_id: VendorId | None) -> int | None:
        """The index of the part that text with this vendor id continues, if any."""
        if vendor_part_id is None:
            last = len(self._parts) - 1
            return last if last >= 0 and isinstance(self._parts[last], TextPart) else None
        index = self._vendor_id_to_part_index.get(vendor_part_id)
        if index is not None and not isinstance(self._parts[index], TextPart | ThinkingPart):
            raise UnexpectedModelBehavior(f'Cannot apply a text delta to existing_part={self._part_at(index)!r}')
        return index

    def _latest_index(self, vendor_part_id: VendorId | None, part_type: type[ThinkingPart]) -> int | None:
        if vendor_part_id is not None:
            return self._vendor_id_to_part_index.get(vendor_part_id)
        last = len(self._parts) - 1
        return last if last >= 0 and isinstance(self._parts[last], part_type) else None

    def _tool_call_target(self, vendor_part_id: VendorId | None, tool_name: str | None) -> int | None:
        if vendor_part_id is None:
            # Without an id, a piece with a name starts a new call; one without continues the last call.
            last = len(self._parts) - 1
            if tool_name is None and last >= 0 and isinstance(self._parts[last], ToolCallPart | ToolCallPartDelta):
                return last
            return None
        index = self._vendor_id_to_part_index.get(vendor_part_id)
        if index is not None and not isinstance(self._parts[index], ToolCallPart | ToolCallPartDelta):
            raise UnexpectedModelBehavior(f'Cannot apply a tool call delta to existing_part={self._part_at(index)!r}')
        return index

    def _text_delta(
        self, index: int, content: str, provider_name: str | None, provider_details: dict[str, Any] | None
    ) -> PartDeltaEvent:
        existing = self._parts[index]
        if not isinstance(existing, TextPart):
            raise UnexpectedModelBehavior(f'Cannot apply a text delta to existing_part={existing!r}')
        delta = TextPartDelta(
            content, provider_name=_new_provider_name(existing, provider_name), provider_details=provider_details
        )
        if delta.provider_name is None and not provider_details:
            # Plain text is only collected here; joining it into the part on every piece would make each piece
            # cost as much as the whole text so far.
            self._chunks.setdefault(index, []).append(content)
        else:
            joined = self._part_at(index)
            assert isinstance(joined, TextPart)
            self._parts[index] = delta.apply(joined)
        return PartDeltaEvent(index=index, delta=delta)

    def _start(self, vendor_part_id: VendorId | None, part: ModelResponsePart) -> PartStartEvent:
        return PartStartEvent(index=self._append(part, vendor_part_id), part=part)

    def _append(self, part: ManagedPart, vendor_part_id: VendorId | None) -> int:
        self._parts.append(part)
        index = len(self._parts) - 1
        if vendor_part_id is not None:
            self._vendor_id_to_part_index[vendor_part_id] = index
        return index

    def __repr__(self) -> str:
        self._join_all_chunks()
        return (
            f'{type(self).__name__}(_parts={self._parts!r}, _vendor_id_to_part_index={self._vendor_id_to_part_index!r})'
        )


def _new_provider_name(existing: ManagedPart, provider_name: str | None) -> str | None:
    """The provider name a delta carries: `None` when it is the part's already."""
    return None if provider_name == existing.provider_name else provider_name


def _new_thinking_part(
    content: str | None,
    id: str | None,
    signature: str | None,
    provider_name: str | None,
    provider_details: ProviderDetailsDelta,
) -> ThinkingPart:
    if content is None and signature is None and provider_details is None:
        raise UnexpectedModelBehavior('Cannot create a ThinkingPart with no content, signature, or provider_details')
    details = provider_details(None) if callable(provider_details) else provider_details
    return ThinkingPart(
        content or '', id=id, signature=signature, provider_name=provider_name, provider_details=details
    )
