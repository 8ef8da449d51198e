"""Example programs built on `pydantic_ai`."""
