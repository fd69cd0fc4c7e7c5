"""Web Push over real round trips: a logged-in account subscribes its devices, and a notice
sent through the push channel reaches a push service on loopback (``push_helpers``) as real
Web Push requests, whose VAPID signature and encrypted payload the test checks as a push
service and a browser would; gone devices are forgotten, failures retried, bad
subscriptions refused and the devices per account capped."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import http_ece
import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from omega.server.accounts.store import AccountStore
from omega.server.clock import FakeClock
from omega.server.infra.db import make_engine
from omega.server.notify.notices import DeliveryFailed, Notice
from omega.server.push.channel import PAYLOAD_MAX, VAPID_LIFETIME, PushChannel, PushOptions, payload
from omega.server.push.schemas import Subscription
from omega.server.push.store import PushStore
from omega.server.tables.store import Repository

from .push_helpers import DeviceKeys, PushService, b64, check_vapid, unb64
from .server_helpers import LiveServer, error_code, make_server
from .site_helpers import CHEAP, Browser

SUBJECT = "mailto:admin@omega.example"
START = datetime(2026, 6, 1, 12, tzinfo=UTC)


@pytest.fixture
def service() -> Iterator[PushService]:
    push = PushService()
    yield push
    push.stop()


def serve(db_url: str, clock: FakeClock | None = None, **options: Any) -> LiveServer:
    return make_server(db_url, bot=None, password_hasher=CHEAP, clock=clock or FakeClock(START),
                       push_options=PushOptions(subject=SUBJECT, loopback=True, **options))


@pytest.fixture
def live(db_url: str) -> Iterator[LiveServer]:
    server = serve(db_url)
    yield server
    server.stop()


@pytest.fixture
def live_sqlite(sqlite_url: str) -> Iterator[LiveServer]:
    server = serve(sqlite_url)
    yield server
    server.stop()


def account(server: LiveServer, name: str) -> Browser:
    browser = Browser(server)
    assert browser.register(name).status_code == 201
    return browser


def user_id(browser: Browser) -> int:
    user = browser.user()
    assert user is not None
    return int(user["id"])


def devices(browser: Browser) -> list[dict[str, Any]]:
    r = browser.get("/api/push/subscriptions")
    assert r.status_code == 200, r.text
    found: list[dict[str, Any]] = r.json()["devices"]
    return found


def subscribe(browser: Browser, body: Any) -> httpx.Response:
    return browser.post("/api/push/subscriptions", body)


def deliver(server: LiveServer, notice: Notice) -> None:
    """What the notify service does with a notice for the push channel: ``deliver`` it, on
    the server's own event loop (DeliveryFailed comes back here)."""
    channel: PushChannel = server.app.state.push
    assert server.loop is not None
    asyncio.run_coroutine_threadsafe(channel.deliver(notice), server.loop).result(60)


def your_turn(user: int, version: int = 4) -> Notice:
    return Notice(user_id=user, kind="your_turn", key=f"your_turn:t1:{version}", subject="Your turn",
                  text="Bo moved at table t1 — it is yours: «e4».", path="/t/t1")


def test_a_notice_reaches_every_device_of_its_player_signed_and_encrypted(live: LiveServer,
                                                                          service: PushService) -> None:
    ann, bo = account(live, "Ann"), account(live, "Bob")
    key = ann.get("/api/push/key").json()["public_key"]
    assert len(key) == 87 and Browser(live).get("/api/push/key").json()["public_key"] == key  # one per site
    phone, laptop, bo_phone = DeviceKeys(), DeviceKeys(), DeviceKeys()
    assert subscribe(ann, phone.subscription(service.endpoint("phone"))).status_code == 200
    r = subscribe(ann, laptop.subscription(service.endpoint("laptop")))
    assert r.status_code == 200 and [d["service"] for d in r.json()["devices"]] == ["127.0.0.1", "127.0.0.1"]
    assert subscribe(bo, bo_phone.subscription(service.endpoint("bo"))).status_code == 200

    deliver(live, your_turn(user_id(ann)))

    assert service.to("bo") == []
    for name, keys in (("phone", phone), ("laptop", laptop)):
        [message] = service.to(name)
        assert keys.decrypt(message) == {"title": "Your turn", "body": "Bo moved at table t1 — it is yours: «e4».",
                                         "url": "/t/t1", "tag": "your_turn:t1:4"}
        claims = check_vapid(message, key)
        assert claims == {"aud": service.url, "sub": SUBJECT, "exp": int(START.timestamp()) + VAPID_LIFETIME}
        assert message.headers["ttl"] == "86400" and len(message.headers["topic"]) == 32
    # A retry of the same notice has the same topic; another notice another.
    deliver(live, your_turn(user_id(ann), version=6))
    first, second = service.to("phone")
    assert first.headers["topic"] != second.headers["topic"]
    assert phone.decrypt(second)["tag"] == "your_turn:t1:6"
    # Another's key cannot read it.
    with pytest.raises(Exception):  # noqa: B017 (http_ece's own failure: the tag does not match)
        laptop.decrypt(second)


def test_the_site_key_pair_is_made_once_whoever_asks_first(db_url: str) -> None:
    repo = Repository(make_engine(db_url))
    repo.migrate()
    store = PushStore(repo)
    barrier = threading.Barrier(6)
    made: list[str] = []

    def first_start() -> None:
        barrier.wait()
        made.append(store.site_keys(START).public_key)

    threads = [threading.Thread(target=first_start) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(made) == 6 and len(set(made)) == 1
    repo.engine.dispose()
    # Every process of the site, now and after a restart, gives the page that key.
    server = serve(db_url)
    try:
        assert Browser(server).get("/api/push/key").json() == {"public_key": made[0]}
    finally:
        server.stop()


def test_devices_subscribing_at_once_cannot_pass_the_cap(db_url: str) -> None:
    repo = Repository(make_engine(db_url))
    repo.migrate()
    ann = AccountStore(repo).create_user("Ann", "ann", "$argon2id$...", START)
    assert ann is not None
    store, keys = PushStore(repo), DeviceKeys()
    barrier = threading.Barrier(6)
    answers: list[int | None] = []

    def subscribe_one(n: int) -> None:
        barrier.wait()
        answers.append(store.subscribe(ann.id, Subscription(f"https://push.example.com/s/{n}", keys.p256dh,
                                                            b64(keys.auth)), START, cap=2))

    threads = [threading.Thread(target=subscribe_one, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(answers, key=str) == [1, 2, None, None, None, None]
    assert len(store.devices(ann.id)) == 2
    repo.engine.dispose()


def test_a_long_notice_is_cut_to_what_push_services_take() -> None:
    text = 'A "quoted" \\ line — ünïcödé 🎲\n' * 400
    data = payload(Notice(user_id=1, kind="your_turn", key="your_turn:t1:4", subject="Your turn", text=text,
                          path="/t/t1"))
    assert PAYLOAD_MAX - 100 < len(data.encode()) <= PAYLOAD_MAX  # cut, not emptied
    assert text.startswith(json.loads(data)["body"])
    # Encrypted for a device, it fits the 4,096 bytes every push service takes.
    keys = DeviceKeys()
    sealed = http_ece.encrypt(data.encode(), private_key=ec.generate_private_key(ec.SECP256R1()),
                              dh=unb64(keys.p256dh), auth_secret=keys.auth, version="aes128gcm")
    assert len(sealed) <= 4096


@pytest.mark.parametrize("status", [404, 410])
def test_a_device_its_push_service_no_longer_knows_is_forgotten(live: LiveServer, service: PushService,
                                                                 status: int) -> None:
    ann = account(live, "Ann")
    for name in ("old", "new"):
        assert subscribe(ann, DeviceKeys().subscription(service.endpoint(name))).status_code == 200
    service.answers["/push/old"] = status
    deliver(live, your_turn(user_id(ann)))  # not an error: nothing to try again
    assert len(service.to("old")) == len(service.to("new")) == 1
    assert [d["id"] for d in devices(ann)] == [2]
    deliver(live, your_turn(user_id(ann), version=6))
    assert len(service.to("old")) == 1 and len(service.to("new")) == 2


@pytest.mark.parametrize("status", [500, 429])
def test_a_push_service_that_fails_makes_the_notice_tried_again(live_sqlite: LiveServer, service: PushService,
                                                                 status: int) -> None:
    live = live_sqlite
    ann = account(live, "Ann")
    keys = DeviceKeys()
    assert subscribe(ann, keys.subscription(service.endpoint("phone"))).status_code == 200
    service.answers["/push/phone"] = status
    with pytest.raises(DeliveryFailed, match=f"1 of 1 devices not reached: 127.0.0.1: answered {status}"):
        deliver(live, your_turn(user_id(ann)))
    assert len(devices(ann)) == 1  # kept
    del service.answers["/push/phone"]
    deliver(live, your_turn(user_id(ann)))  # the retry
    assert keys.decrypt(service.to("phone")[-1])["title"] == "Your turn"


def test_a_push_service_that_does_not_answer_times_out_and_is_tried_again(sqlite_url: str,
                                                                          service: PushService) -> None:
    server = serve(sqlite_url, timeout=0.5)
    try:
        ann = account(server, "Ann")
        assert subscribe(ann, DeviceKeys().subscription(service.endpoint("slow"))).status_code == 200
        service.held.add("/push/slow")
        with pytest.raises(DeliveryFailed, match="no answer"):
            deliver(server, your_turn(user_id(ann)))
        assert len(devices(ann)) == 1
    finally:
        server.stop()


def test_another_refusal_is_not_retried_and_keeps_the_device(live_sqlite: LiveServer, service: PushService) -> None:
    live = live_sqlite
    ann = account(live, "Ann")
    assert subscribe(ann, DeviceKeys().subscription(service.endpoint("phone"))).status_code == 200
    service.answers["/push/phone"] = 413
    deliver(live, your_turn(user_id(ann)))  # logged, not raised: the same message would be refused again
    assert len(service.to("phone")) == 1 and len(devices(ann)) == 1


def test_a_redirect_from_a_push_service_is_not_followed(live_sqlite: LiveServer, service: PushService) -> None:
    live = live_sqlite
    ann = account(live, "Ann")
    assert subscribe(ann, DeviceKeys().subscription(service.endpoint("moved"))).status_code == 200
    service.answers["/push/moved"] = 307  # 307 keeps the method and body: a follower would post them on
    service.moved["/push/moved"] = service.endpoint("inside")
    deliver(live, your_turn(user_id(ann)))  # logged, not retried
    assert len(service.to("moved")) == 1 and service.to("inside") == []
    assert len(devices(ann)) == 1


def test_a_player_without_devices_gets_nothing_and_no_error(live_sqlite: LiveServer, service: PushService) -> None:
    live = live_sqlite
    ann = account(live, "Ann")
    deliver(live, your_turn(user_id(ann)))
    assert service.received == []


@pytest.fixture(scope="module")
def production(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    """A logged-in account on a server configured as in production (no loopback endpoints),
    shared by the refusals, which change nothing."""
    url = f"sqlite:///{tmp_path_factory.mktemp('push') / 'omega.sqlite3'}"
    server = make_server(url, bot=None, password_hasher=CHEAP, push_options=PushOptions(subject=SUBJECT))
    try:
        yield account(server, "Ann")
    finally:
        server.stop()


GOOD = DeviceKeys()
POINT = GOOD.subscription("https://push.example.com/s/1")["keys"]
NOT_A_POINT = b64(b"\x04" + bytes(64))


@pytest.mark.parametrize(("body", "code", "says"), [
    ({"endpoint": "http://push.example.com/s/1", "keys": POINT}, "bad_subscription", "https URL"),
    ({"endpoint": "https://10.0.0.7/s/1", "keys": POINT}, "bad_subscription", "https URL"),
    ({"endpoint": "https://[fd00::1]/s/1", "keys": POINT}, "bad_subscription", "https URL"),
    ({"endpoint": "https://intranet/s/1", "keys": POINT}, "bad_subscription", "https URL"),
    ({"endpoint": "https://push.example.com:8443/s/1", "keys": POINT}, "bad_subscription", "https URL"),
    ({"endpoint": "https://me@push.example.com/s/1", "keys": POINT}, "bad_subscription", "https URL"),
    ({"endpoint": "https://push.example.com:x/s/1", "keys": POINT}, "bad_subscription", "port"),
    ({"endpoint": "https://push.example.com/s/1", "keys": {"p256dh": NOT_A_POINT, "auth": POINT["auth"]}},
     "bad_subscription", "not a P-256 public key"),
    ({"endpoint": "https://push.example.com/s/1", "keys": {"p256dh": POINT["p256dh"], "auth": b64(bytes(8))}},
     "bad_subscription", "16 bytes"),
    ({"endpoint": "https://push.example.com/s/1", "keys": {"p256dh": "!!!!", "auth": POINT["auth"]}},
     "bad_subscription", "base64url"),
    ({"endpoint": "https://push.example.com/" + "s" * 1024, "keys": POINT}, "bad_request", "endpoint"),
    ({"endpoint": "https://push.example.com/s/1"}, "bad_request", "keys"),
    ({"endpoint": "https://push.example.com/s/1", "keys": POINT, "extra": 1}, "bad_request", "extra"),
    ({"endpoint": 7, "keys": POINT}, "bad_request", "endpoint"),
    ("not an object", "bad_request", "bad request"),
])
def test_a_bad_subscription_is_refused_with_its_code_and_changes_nothing(production: Browser, body: Any, code: str,
                                                                         says: str) -> None:
    r = subscribe(production, body)
    assert (r.status_code, error_code(r)) == ({"bad_request": 400, "bad_subscription": 400}[code], code), r.text
    assert says in r.json()["error"]["message"]
    assert devices(production) == []


def test_a_loopback_endpoint_is_refused_where_the_tests_push_service_is_not_allowed(sqlite_url: str) -> None:
    server = make_server(sqlite_url, bot=None, password_hasher=CHEAP, push_options=PushOptions(subject=SUBJECT))
    try:
        ann = account(server, "Ann")
        r = subscribe(ann, GOOD.subscription("http://127.0.0.1:9/push/x"))
        assert error_code(r) == "bad_subscription" and devices(ann) == []
        assert subscribe(ann, GOOD.subscription("https://push.example.com/s/1")).status_code == 200
    finally:
        server.stop()


def test_only_the_sites_page_of_a_logged_in_account_subscribes(live_sqlite: LiveServer, service: PushService) -> None:
    live = live_sqlite
    body = DeviceKeys().subscription(service.endpoint("phone"))
    guest = Browser(live)
    assert error_code(subscribe(guest, body)) == "auth_required"
    assert error_code(guest.get("/api/push/subscriptions")) == "auth_required"
    ann = account(live, "Ann")
    r = ann.post("/api/push/subscriptions", body, origin="https://evil.example")
    assert (r.status_code, error_code(r)) == (403, "cross_site")
    assert subscribe(ann, body).status_code == 200
    r = ann.post("/api/push/unsubscribe", {"endpoint": body["endpoint"]}, origin="https://evil.example")
    assert error_code(r) == "cross_site" and len(devices(ann)) == 1


def test_an_account_has_a_capped_number_of_devices(sqlite_url: str, service: PushService) -> None:
    server = serve(sqlite_url, devices_per_account=2)
    try:
        ann = account(server, "Ann")
        phone, laptop, tablet = (DeviceKeys().subscription(service.endpoint(n)) for n in ("phone", "laptop", "tablet"))
        assert subscribe(ann, phone).status_code == subscribe(ann, laptop).status_code == 200
        r = subscribe(ann, tablet)
        assert (r.status_code, error_code(r)) == (409, "too_many_devices") and "2 devices" in r.text
        assert len(devices(ann)) == 2
        renewed = DeviceKeys().subscription(service.endpoint("phone"))  # the same device, new keys
        assert subscribe(ann, renewed).status_code == 200 and len(devices(ann)) == 2
        r = ann.post("/api/push/unsubscribe", {"endpoint": laptop["endpoint"]})
        assert r.json()["removed"] is True and r.json()["max"] == 2
        assert subscribe(ann, tablet).status_code == 200 and len(devices(ann)) == 2
    finally:
        server.stop()


def test_a_device_belongs_to_the_account_that_subscribed_it_last(live: LiveServer, service: PushService) -> None:
    ann, bo = account(live, "Ann"), account(live, "Bob")
    shared = DeviceKeys()
    body = shared.subscription(service.endpoint("family"))
    assert subscribe(ann, body).status_code == 200
    # Bob cannot take it away by unsubscribing it: only its holder can.
    assert bo.post("/api/push/unsubscribe", {"endpoint": body["endpoint"]}).json()["removed"] is False
    assert len(devices(ann)) == 1
    # Logged in as Bob on that device, it subscribes again: it is Bob's now.
    assert subscribe(bo, body).status_code == 200
    assert devices(ann) == [] and len(devices(bo)) == 1
    deliver(live, your_turn(user_id(ann)))
    assert service.to("family") == []
    deliver(live, your_turn(user_id(bo)))
    assert shared.decrypt(service.to("family")[0])["url"] == "/t/t1"


def test_the_service_worker_and_manifest_are_served_at_the_root(live_sqlite: LiveServer) -> None:
    page = Browser(live_sqlite)
    worker = page.get("/sw.js")
    assert worker.status_code == 200 and worker.headers["content-type"] == "text/javascript; charset=utf-8"
    assert worker.headers["service-worker-allowed"] == "/" and worker.headers["cache-control"] == "no-cache"
    assert 'addEventListener("push"' in worker.text and 'addEventListener("notificationclick"' in worker.text
    manifest = page.get("/manifest.webmanifest")
    assert manifest.headers["content-type"] == "application/manifest+json"
    assert '<link rel="manifest" href="/manifest.webmanifest">' in page.get("/").text
    found = manifest.json()
    assert (found["display"], found["start_url"], found["name"]) == ("standalone", "/", "Omega")
    for icon in found["icons"]:
        r = page.get(icon["src"])
        assert r.status_code == 200 and r.headers["content-type"].startswith(icon["type"])
        if icon["type"] == "image/png":  # its size is what the manifest says
            width, height = int.from_bytes(r.content[16:20], "big"), int.from_bytes(r.content[20:24], "big")
            assert icon["sizes"] == f"{width}x{height}"
