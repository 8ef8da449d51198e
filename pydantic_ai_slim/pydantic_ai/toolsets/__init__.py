"""Toolsets: collections of tools, and wrappers that filter, rename, prefix, prepare or guard them."""

from ._dynamic import ToolsetFunc
from .abstract import AbstractToolset, ToolsetTool
from .approval_required import ApprovalRequiredToolset
from .combined import CombinedToolset
from .external import DeferredToolset, ExternalToolset  # pyright: ignore[reportDeprecated] -- re-exported for old code
from .filtered import FilteredToolset
from .function import FunctionToolset
from .prefixed import PrefixedToolset
from .prepared import PreparedToolset
from .renamed import RenamedToolset
from .wrapper import WrapperToolset

__all__ = (
    'AbstractToolset',
    'ApprovalRequiredToolset',
    'CombinedToolset',
    'DeferredToolset',
    'ExternalToolset',
    'FilteredToolset',
    'FunctionToolset',
    'PrefixedToolset',
    'PreparedToolset',
    'RenamedToolset',
    'ToolsetFunc',
    'ToolsetTool',
    'WrapperToolset',
)
