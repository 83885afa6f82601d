"""What a request to `palais serve` sends, read without trusting it: its body, its JSON, and
every number in its query string or its JSON.

Numbers go through common/numbers.py, the one reader of numbers from untrusted text: ASCII
digits only, so `?seat=²` (a digit to str.isdigit, not to int) or `?seat=٣` is refused
with a 400 like any other bad number, never a 500, and a JSON number of thousands of
digits costs nothing. Everything wrong is a Refused (web/session.py) naming the field.
"""

from __future__ import annotations

import json

from starlette.requests import ClientDisconnect

from common.numbers import MAX_DIGITS, integer, natural, shown

from .session import Refused


class Huge:
    """A JSON integer too long to be in any range: kept as a note of its length, so the
    field's check refuses it and says what it was."""

    def __init__(self, text: str):
        self.digits = len(text.lstrip("-"))

    def __repr__(self) -> str:
        return f"a number of {self.digits} digits"


def _json_int(text: str):
    if len(text.lstrip("-0")) > MAX_DIGITS:
        return Huge(text)
    return integer(text)


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")


async def read_body(request, limit: int) -> bytes:
    """The request body, refused (413) as soon as it is over `limit` bytes."""
    declared = request.headers.get("content-length")
    length = natural(declared) if declared is not None else None
    if declared is not None and length is None:
        raise Refused(f"Content-Length: expected a number of bytes, got {shown(declared)}")
    if length is not None and length > limit:
        raise Refused(f"the body is over the limit of {limit} bytes", 413)
    body = bytearray()
    try:
        async for chunk in request.stream():
            body += chunk
            if len(body) > limit:
                raise Refused(f"the body is over the limit of {limit} bytes", 413)
    except ClientDisconnect:
        raise Refused("the request's body did not arrive whole", 408) from None
    return bytes(body)


async def json_body(request, limit: int) -> dict:
    """The body as a JSON object; its integers read by common/numbers.py, NaN and Infinity
    refused (they are not JSON)."""
    raw = await read_body(request, limit)
    try:
        data = json.loads(raw or b"{}", parse_int=_json_int, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        raise Refused("the body is not JSON") from None
    if not isinstance(data, dict):
        raise Refused("the body must be a JSON object")
    return data


def int_field(data: dict, name: str, low: int, high: int, default=None):
    """data[name], a whole number low..high (not true/false, not 3.0); `default` when it is
    absent; None when absent or null and there is no default."""
    value = data.get(name, default)
    if value is None and default is None:
        return None
    if type(value) is not int or not low <= value <= high:
        raise Refused(f"{name}: expected a whole number {low}..{high}, got {value!r}")
    return value


def query_int(request, name: str, default=None) -> int:
    """?name=N of the request (or a WebSocket's), ASCII digits only; `default` when it is
    absent (Refused if there is none), Refused when given twice or not a whole number."""
    given = request.query_params.getlist(name)
    if not given:
        if default is None:
            raise Refused(f"{name}: missing (?{name}=N)")
        return default
    if len(given) > 1:
        raise Refused(f"{name}: given {len(given)} times; expected once")
    value = natural(given[0])
    if value is None or len(given[0].lstrip("0")) > MAX_DIGITS:
        raise Refused(f"{name}: expected a whole number (digits 0-9), got {shown(given[0])}")
    return value
