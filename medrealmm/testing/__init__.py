"""Helpers for the tests only (never imported by runtime code): capturing our own log lines."""

__all__ = ["logs"]
