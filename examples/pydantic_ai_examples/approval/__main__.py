"""`python -m pydantic_ai_examples.approval`: the interactive approval demo."""

from __future__ import annotations

import sys

from .cli import main

sys.exit(main())
