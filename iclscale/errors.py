"""The one exception type for mistakes a user can make, and the helpers its messages use.

Every package raises `UserError` (the trainer, iclscale.sweeps, iclscale.analysis, the papers), so this module
imports nothing of the project: the command line's one `except UserError` (one line on stderr, exit status 2)
catches what any of them raises."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any

__all__ = ["UserError", "did_you_mean", "shorten", "unknown_name"]


class UserError(Exception):
    """A bad sweep file, CLI value, study name or results directory.

    The command line prints its message on one line and exits with status 2, no traceback.
    Messages name the place (file, key or flag), the problem and what is allowed.
    """


VALUE_CHARS = 60  # a value quoted in a message is shortened past this many characters


def shorten(value: Any, limit: int = VALUE_CHARS) -> str:
    """repr() of a value for a message, cut past `limit` characters (with "…").

    Lists, dicts and long texts are rendered only as far as needed, so a huge value (a YAML alias
    bomb, a 400-digit integer) costs nothing to quote."""
    text = _head_repr(value, limit + 1)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _head_repr(value: Any, budget: int) -> str:
    """At least the first `budget` characters of repr(value) (all of it when shorter)."""
    if isinstance(value, dict | list | tuple):
        pairs = value.items() if isinstance(value, dict) else value
        brackets = "{}" if isinstance(value, dict) else "[]" if isinstance(value, list) else "()"
        text = brackets[0]
        for i, item in enumerate(pairs):
            piece = (
                f"{_head_repr(item[0], budget)}: {_head_repr(item[1], budget)}"
                if isinstance(value, dict)
                else _head_repr(item, budget)
            )
            text += (", " if i else "") + piece
            if len(text) > budget:
                return text
        return text + brackets[1]
    if isinstance(value, str) and len(value) > budget:
        return repr(value[:budget])
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 3 * budget:
        return f"<an integer of about {int(value.bit_length() * 0.30103) + 1} digits>"
    return repr(value)


def did_you_mean(name: Any, known: Iterable[str]) -> str:
    """ "; did you mean 'x'?" when a known name is close to `name`, else ""."""
    if not isinstance(name, str) or len(name) > 200:
        return ""
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def unknown_name(what: str, name: Any, known: Iterable[str]) -> str:
    """The text for an unknown key, param or study: the name, a suggestion, and what is allowed."""
    known = list(known)
    return f"unknown {what} {shorten(name)}{did_you_mean(name, known)} (allowed: {', '.join(known)})"
