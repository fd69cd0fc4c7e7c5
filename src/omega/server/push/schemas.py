"""The Web Push request bodies: a browser's ``PushSubscription`` (as its ``toJSON()`` gives
it) to keep, and the endpoint of one to forget.

A body of the wrong shape is ``bad_request``, like every body; one of the right shape that
no push service could have made is ``bad_subscription``: an endpoint that is not ``https`` on
the default port of a named host (the server will post to it: no address of its own
network), or keys that are not a P-256 point and a 16-byte secret.

>>> sub = parse_subscription(b'{"endpoint": "https://push.example.com/s/1", "expirationTime": null, '
...     b'"keys": {"p256dh": "BEKehnkybvsftIvG5AHuJWfI_6zOEP1ktQwu1YzFN-hI4Ww5KGlZHs3NPzmRhiZUIPm4y2nKcyWL-sM5Zop8pTo",'
...     b' "auth": "tBHItJI5svbpez7KI4CCXg"}}')
>>> sub.endpoint, len(sub.p256dh), len(sub.auth)
('https://push.example.com/s/1', 87, 22)
>>> check_endpoint("http://127.0.0.1:8080/s/1", loopback=False)
Traceback (most recent call last):
...
omega.server.errors.ApiError: the push endpoint must be an https URL of a push service
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
from dataclasses import dataclass
from typing import Annotated
from urllib.parse import urlsplit

from cryptography.hazmat.primitives.asymmetric import ec
from pydantic import StringConstraints, TypeAdapter

from omega.i18n import Message
from omega.i18n import translatable as _
from omega.server.errors import ApiError
from omega.server.infra.bodies import Strict, parse
from omega.server.push.models import ENDPOINT_MAX

__all__ = ["Subscription", "parse_subscription", "parse_unsubscribe", "check_endpoint", "b64url_decode"]

Endpoint = Annotated[str, StringConstraints(min_length=1, max_length=ENDPOINT_MAX)]
# 87 and 22: a 65-byte point and 16 bytes in unpadded base64url; room for padding.
P256dh = Annotated[str, StringConstraints(max_length=92)]
Auth = Annotated[str, StringConstraints(max_length=24)]
_LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")


class Keys(Strict):
    """The subscription's keys: the browser's public key and the shared authentication secret."""

    p256dh: P256dh
    auth: Auth


class SubscriptionBody(Strict):
    """``POST /api/push/subscriptions``: ``PushSubscription.toJSON()``."""

    endpoint: Endpoint
    expirationTime: int | float | None = None  # the browser's name; not kept (null in every browser now)
    keys: Keys


class UnsubscribeBody(Strict):
    """``POST /api/push/unsubscribe``: the endpoint of the device to forget."""

    endpoint: Endpoint


_subscription = TypeAdapter(SubscriptionBody)
_unsubscribe = TypeAdapter(UnsubscribeBody)


@dataclass(frozen=True)
class Subscription:
    """A checked subscription: the endpoint, and the keys in unpadded base64url."""

    endpoint: str
    p256dh: str
    auth: str


def b64url_decode(text: str) -> bytes:
    """Base64url with or without its padding (browsers send it without); any other
    character is a ``binascii.Error``.

    >>> b64url_decode("AQID"), b64url_decode("AQ")
    (b'\\x01\\x02\\x03', b'\\x01')
    """
    return base64.b64decode(text + "=" * (-len(text) % 4), altchars=b"-_", validate=True)


def _bad(message: Message) -> ApiError:
    return ApiError("bad_subscription", message)


def check_endpoint(endpoint: str, *, loopback: bool) -> str:
    """``endpoint`` if a push service could have made it; ``loopback``: tests may also give
    ``http`` addresses of this machine (their own push service)."""
    parts = urlsplit(endpoint)
    host = (parts.hostname or "").lower()
    try:
        port = parts.port
    except ValueError:
        raise _bad(_("the push endpoint's port is not a number")) from None
    if loopback and parts.scheme in ("http", "https") and host in _LOOPBACK_NAMES:
        return endpoint
    try:
        ipaddress.ip_address(host)
        literal = True
    except ValueError:
        literal = False
    # No address literal, no single-label name (localhost, an intranet host), no other port
    # and no user info: the server posts to this URL, so it must not reach into its network.
    if (parts.scheme != "https" or literal or "." not in host.strip(".") or port not in (None, 443)
            or "@" in parts.netloc or parts.fragment):
        raise _bad(_("the push endpoint must be an https URL of a push service"))
    return endpoint


def parse_subscription(raw: bytes, *, loopback: bool = False) -> Subscription:
    """A browser's ``PushSubscription`` JSON, checked (``bad_request`` / ``bad_subscription``)."""
    body = parse(_subscription, raw)
    endpoint = check_endpoint(body.endpoint, loopback=loopback)
    try:
        point, secret = b64url_decode(body.keys.p256dh), b64url_decode(body.keys.auth)
    except (binascii.Error, ValueError):
        raise _bad(_("the subscription's keys must be base64url")) from None
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except ValueError:
        raise _bad(_("the subscription's p256dh key is not a P-256 public key")) from None
    if len(point) != 65 or len(secret) != 16:
        raise _bad(_("the subscription's p256dh must be an uncompressed point and its auth 16 bytes"))
    encode = base64.urlsafe_b64encode
    return Subscription(endpoint, encode(point).decode().rstrip("="), encode(secret).decode().rstrip("="))


def parse_unsubscribe(raw: bytes) -> str:
    """The endpoint of the device to forget (``bad_request`` otherwise)."""
    return parse(_unsubscribe, raw).endpoint
