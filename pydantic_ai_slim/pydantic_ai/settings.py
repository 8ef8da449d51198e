"""Settings that tune how a model generates."""

from __future__ import annotations

from typing_extensions import TypedDict

__all__ = ('ModelSettings', 'merge_model_settings')


class ModelSettings(TypedDict, total=False):
    """Settings for a model request; each model uses the ones its provider supports.

    Settings given to a run override the agent's, which override the model's.
    """

    max_tokens: int
    """The most tokens to generate."""
    temperature: float
    """Sampling temperature."""
    top_p: float
    """Nucleus sampling probability mass."""
    timeout: float
    """Request timeout in seconds."""
    parallel_tool_calls: bool
    """Whether the model may call several tools in one response."""
    seed: int
    """Random seed for sampling."""
    presence_penalty: float
    """Penalty for tokens already present."""
    frequency_penalty: float
    """Penalty proportional to token frequency."""
    logit_bias: dict[str, int]
    """Bias added to given tokens' logits."""
    stop_sequences: list[str]
    """Sequences that end generation."""
    extra_headers: dict[str, str]
    """Extra HTTP headers for the request."""
    extra_body: object
    """Extra fields for the request body."""


def merge_model_settings(base: ModelSettings | None, overrides: ModelSettings | None) -> ModelSettings | None:
    """Merge two settings dicts, `overrides` winning; `None` if both are `None`."""
    if base and overrides:
        return {**base, **overrides}
    return base or overrides
