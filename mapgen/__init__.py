"""mapgen: generate, validate, solve and playtest Corps of Discovery maps."""

__version__ = "0.1.0"
