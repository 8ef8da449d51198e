"""The model interface, the parameters of a request, and resolution of model names like `'test'`."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, TypeAlias

from .. import _utils
from ..exceptions import UserError
from ..messages import ModelMessage, ModelResponse
from ..profiles import DEFAULT_PROFILE, ModelProfile
from ..settings import ModelSettings, merge_model_settings
from ..tools import ToolDefinition

if TYPE_CHECKING:
    from .._run_context import RunContext
    from ..output import OutputObjectDefinition

__all__ = ('KnownModelName', 'Model', 'ModelRequestParameters', 'OutputMode', 'infer_model')

OutputMode: TypeAlias = Literal['text', 'tool', 'native', 'prompted', 'tool_or_text', 'image', 'auto']
"""How the model is asked for the output: plain text, an output tool, native structured output, or a prompt."""

KnownModelName: TypeAlias = Literal['test'] | str
"""A model name the agent can resolve: `'test'`, or `'provider:model'` for an installed provider."""

# Providers upstream knows, and the extra each needs. None of them ships in this distribution yet, so naming
# one gives a clear error instead of an import failure deep inside a run.
_PROVIDER_EXTRAS: dict[str, str] = {
    'openai': 'openai',
    'openai-chat': 'openai',
    'openai-responses': 'openai',
    'azure': 'openai',
    'deepseek': 'openai',
    'ollama': 'openai',
    'openrouter': 'openai',
    'anthropic': 'anthropic',
    'google-gla': 'google',
    'google-vertex': 'google',
    'gemini': 'google',
    'groq': 'groq',
    'mistral': 'mistral',
    'cohere': 'cohere',
    'bedrock': 'bedrock',
    'huggingface': 'huggingface',
}


@dataclass(repr=False, kw_only=True)
class ModelRequestParameters:
    """What the agent tells a model about a request besides the messages: tools and the output mode."""

    function_tools: list[ToolDefinition] = field(default_factory=list[ToolDefinition])
    """The tools the model may call."""
    builtin_tools: list[object] = field(default_factory=list[object])
    """Provider-side tools; not supported by the models in this distribution."""
    output_mode: OutputMode = 'text'
    """How the output is requested."""
    output_object: OutputObjectDefinition | None = None
    """The schema of native or prompted structured output."""
    output_tools: list[ToolDefinition] = field(default_factory=list[ToolDefinition])
    """The output tools the model may call to give the final result."""
    prompted_output_template: str | None = None
    """The template of the prompt for prompted output."""
    allow_text_output: bool = True
    """Whether plain text is an acceptable final response."""
    allow_image_output: bool = False
    """Whether an image is an acceptable final response."""

    @property
    def tool_defs(self) -> dict[str, ToolDefinition]:
        """Function and output tool definitions by name."""
        return {tool_def.name: tool_def for tool_def in [*self.function_tools, *self.output_tools]}

    __repr__ = _utils.dataclasses_no_defaults_repr


class Model(ABC):
    """A model the agent can send requests to."""

    _settings: ModelSettings | None = None

    def __init__(self, *, settings: ModelSettings | None = None) -> None:
        """Make a model, with default settings for its requests."""
        self._settings = settings

    @property
    def settings(self) -> ModelSettings | None:
        """The model's default settings."""
        return self._settings

    @abstractmethod
    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        """Send the messages and return the model's response."""
        raise NotImplementedError

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: RunContext[object] | None = None,
    ) -> AsyncIterator[object]:
        """Send the messages and stream the response; models that cannot stream raise."""
        raise NotImplementedError(f'Streamed requests not supported by this {self.__class__.__name__}')
        yield  # pragma: no cover

    def customize_request_parameters(self, model_request_parameters: ModelRequestParameters) -> ModelRequestParameters:
        """Adapt the request parameters to what the model supports."""
        return model_request_parameters

    def prepare_request(
        self, model_settings: ModelSettings | None, model_request_parameters: ModelRequestParameters
    ) -> tuple[ModelSettings | None, ModelRequestParameters]:
        """Merge the model's own settings under the request's, and customize the parameters."""
        merged = merge_model_settings(self.settings, model_settings)
        return merged, self.customize_request_parameters(model_request_parameters)

    @property
    @abstractmethod
    def model_name(self) -> str:
        """The model's name."""
        raise NotImplementedError

    @property
    @abstractmethod
    def system(self) -> str:
        """The provider's name, e.g. `'openai'`."""
        raise NotImplementedError

    @property
    def profile(self) -> ModelProfile:
        """What the model supports; the default profile unless a model says more."""
        return DEFAULT_PROFILE

    @property
    def base_url(self) -> str | None:
        """The base URL of the provider's API, if any."""
        return None

    @property
    def label(self) -> str:
        """A human-readable label for the model."""
        return f'{self.system}:{self.model_name}'


def infer_model(model: Model | KnownModelName | str) -> Model:
    """Resolve a model instance or name to a `Model`.

    Raises:
        UserError: if the name needs a provider extra that is not installed.
    """
    if isinstance(model, Model):
        return model
    if model == 'test':
        from .test import TestModel

        return TestModel()
    provider, sep, _model_name = model.partition(':')
    if not sep:
        raise UserError(f'Unknown model: {model}')
    extra = _PROVIDER_EXTRAS.get(provider)
    if extra is None:
        raise ValueError(f'Unknown provider: {provider}')
    raise UserError(
        f'The `{provider}` provider is not available: it needs the `{extra}` optional dependencies, which this '
        f'installation lacks. Install them with `pip install "pydantic-ai-slim[{extra}]"`, or pass a `Model` instance.'
    )
