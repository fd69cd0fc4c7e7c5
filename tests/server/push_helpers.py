"""A push service of the tests' own on 127.0.0.1, and the browser side of a subscription.

:class:`PushService` is a real HTTP server in a thread: it takes the requests the site sends
(real Web Push requests, made by ``pywebpush``), keeps each, and answers each endpoint as the
test tells it (201 by default; 404, 410, 429 or 500; or no answer until the test lets it go).
:class:`DeviceKeys` is what a browser makes when it subscribes: a P-256 key pair and a 16-byte
secret; it decrypts the messages sent to it (RFC 8291, ``aes128gcm``, by ``http_ece``) and
:func:`check_vapid` verifies their VAPID signature (RFC 8292) with ``cryptography``.
"""

from __future__ import annotations

import base64
import json
import os
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Received:
    """One request the push service took: its path, headers and (encrypted) body."""

    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class PushService:
    """The push service: ``answers`` maps a path to the status it answers (201 otherwise),
    ``moved`` a path to the ``Location`` it sends with it; a path in ``held`` gets no answer
    until ``release`` (a push service that hangs)."""

    answers: dict[str, int] = field(default_factory=dict)
    moved: dict[str, str] = field(default_factory=dict)
    held: set[str] = field(default_factory=set)
    received: list[Received] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.release = threading.Event()
        self.lock = threading.Lock()
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                with service.lock:
                    service.received.append(Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                    status = service.answers.get(self.path, 201)
                if self.path in service.held:
                    service.release.wait(60)
                self.send_response(status)
                if self.path in service.moved:
                    self.send_header("location", service.moved[self.path])
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass  # quiet: the tests read ``received``

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def endpoint(self, name: str) -> str:
        return f"{self.url}/push/{name}"

    def to(self, name: str) -> list[Received]:
        """What was sent to the endpoint ``name``."""
        with self.lock:
            return [r for r in self.received if r.path == f"/push/{name}"]

    def stop(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


class DeviceKeys:
    """A browser's side of a subscription: its key pair and authentication secret."""

    def __init__(self) -> None:
        self.private_key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)
        self.p256dh = b64(self.private_key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint))

    def subscription(self, endpoint: str) -> dict[str, Any]:
        """What ``PushSubscription.toJSON()`` gives for ``endpoint``."""
        return {"endpoint": endpoint, "expirationTime": None, "keys": {"p256dh": self.p256dh, "auth": b64(self.auth)}}

    def decrypt(self, message: Received) -> dict[str, Any]:
        """The JSON a message carries, decrypted as the browser would."""
        assert message.headers["content-encoding"] == "aes128gcm"
        plain = http_ece.decrypt(message.body, private_key=self.private_key, auth_secret=self.auth,
                                 version="aes128gcm")
        data: dict[str, Any] = json.loads(plain)
        return data


def check_vapid(message: Received, public_key: str) -> dict[str, Any]:
    """The claims of the message's VAPID token (``Authorization: vapid t=<JWT>, k=<key>``),
    once its key is shown to be ``public_key`` and its ES256 signature to be that key's."""
    scheme, _, params = message.headers["authorization"].partition(" ")
    assert scheme == "vapid", message.headers["authorization"]
    fields = dict(part.strip().split("=", 1) for part in params.split(","))
    assert fields["k"] == public_key, "signed with another key than the one the site gives the page"
    header, claims, signature = fields["t"].split(".")
    assert json.loads(unb64(header)) == {"typ": "JWT", "alg": "ES256"}
    raw = unb64(signature)
    assert len(raw) == 64
    key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(public_key))
    try:
        key.verify(encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")),
                   f"{header}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        raise AssertionError("the VAPID token's signature is not the site key's") from None
    decoded: dict[str, Any] = json.loads(unb64(claims))
    return decoded
