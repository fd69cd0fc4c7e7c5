"""The site's secret keys: random bytes made the first time one is asked for and kept in the
database (``site_keys``), so every process of the site signs and checks with the same key
and a restart invalidates nothing.  A feature signs with :func:`sign` under a purpose of its
own, so a signature made for one purpose never passes for another.

>>> from omega.server.infra.db import Database, make_engine
>>> db = Database(make_engine("sqlite://")); db.migrate()
>>> key = site_key(db)
>>> len(key), site_key(db) == key
(32, True)
>>> mac = sign(key, "email", "7", "ann@example.com")
>>> verify(key, mac, "email", "7", "ann@example.com"), verify(key, mac, "reset", "7", "ann@example.com")
(True, False)
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

from sqlalchemy import String, column, select, table
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from omega.server.infra.db import Database

__all__ = ["SITE_KEYS", "SITE_KEY", "site_key", "sign", "verify"]

#: The name of the site-wide signing key (features separate their uses by purpose).
SITE_KEY = "site"


#: The ``site_keys`` table (revision 0015; its model is ``notify.models.SiteKeyRow``): a
#: key's ``name`` and its ``value``, 32 random bytes in hex.  A table clause, not a second
#: model: the infrastructure needs only its two columns, and a model is declared once.
SITE_KEYS = table("site_keys", column("name", String), column("value", String))


def site_key(db: Database, name: str = SITE_KEY) -> bytes:
    """The key called ``name``, made now if the site has none yet (blocking).  Two processes
    starting at once both try to make it; the first insert wins and both read that one."""
    dialect_insert = postgresql_insert if db.is_postgres else sqlite_insert
    with db.writing() as conn:
        conn.execute(dialect_insert(SITE_KEYS).values(name=name, value=secrets.token_hex(32))
                     .on_conflict_do_nothing(index_elements=["name"]))
        value = conn.execute(select(SITE_KEYS.c.value).where(SITE_KEYS.c.name == name)).scalar_one()
    return bytes.fromhex(value)


def sign(key: bytes, purpose: str, *parts: str) -> str:
    """An HMAC-SHA256 of ``parts`` under ``purpose``, URL-safe base64 (43 characters).  The
    parts are joined with NUL, which none of them may hold, so no two lists sign alike.

    >>> len(sign(b"k" * 32, "email", "1", "a@example.com"))
    43
    """
    if any("\0" in p for p in (purpose, *parts)):
        raise ValueError("a signed part holds no NUL")
    mac = hmac.new(key, "\0".join((purpose, *parts)).encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).rstrip(b"=").decode()


def verify(key: bytes, mac: str, purpose: str, *parts: str) -> bool:
    """Whether ``mac`` is :func:`sign` of ``parts`` under ``purpose``, compared in constant
    time (a comparison that stops at the first wrong character would tell how much of a
    guess is right)."""
    return hmac.compare_digest(sign(key, purpose, *parts).encode(), mac.encode("utf-8", "replace"))
