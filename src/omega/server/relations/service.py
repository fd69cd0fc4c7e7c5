"""The relations service: follows and blocks made and ended, the friends list, and what
other features ask (:meth:`Relations.blocked_between`, :meth:`Relations.blocked_among`,
both inside the caller's transaction).

Every limit and refusal's words of the feature are here (one home): an account follows at
most :data:`MAX_FOLLOWS` accounts and blocks at most :data:`MAX_BLOCKS`.  A block keeps two
accounts apart whichever of them made it: it ends the follows both ways, and while it holds
neither may follow the other, challenge the other, be matched with the other in quick play,
or read the other's messages in a table's chat.

>>> too_many_follows().message
'you follow 500 players, the most one account may: unfollow one first'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy.engine import Connection

from omega.i18n import translatable as _
from omega.server.accounts.store import User
from omega.server.errors import ApiError
from omega.server.relations import store
from omega.server.relations.store import Account
from omega.server.tables.core import TableCore
from omega.server.tables.timecontrol import stamp_ms

__all__ = ["Relations", "MAX_FOLLOWS", "MAX_BLOCKS", "Apart", "OnlineHere", "unknown_player", "not_yourself",
           "too_many_follows", "too_many_blocks", "blocked_pair"]

T = TypeVar("T")

#: Accounts one account may follow, and block: a club's worth and more; past them the
#: account unfollows (unblocks) one first.
MAX_FOLLOWS = 500
MAX_BLOCKS = 500
#: The pairs of the given accounts kept apart by a block (what quick play and chat ask,
#: inside their own transaction).
Apart = Callable[[Connection, Sequence[int]], set[frozenset[int]]]
#: The accounts with one of this process's page sockets open (the lobby's), beside the
#: table pages every process counts in the database.
OnlineHere = Callable[[], set[int]]


def unknown_player(username: str) -> ApiError:
    """The refusal of a username no account has."""
    return ApiError("unknown_player", _("there is no player named {username}", username=f"{username[:64]!r}"))


def not_yourself(what: str) -> ApiError:
    """The refusal of a relation with oneself (``what``: follow, block, challenge)."""
    return ApiError("not_yourself", _("you cannot {what} yourself", what=what))


def too_many_follows() -> ApiError:
    """The refusal past :data:`MAX_FOLLOWS`."""
    return ApiError("too_many_follows", _("you follow {max_follows} players, the most one account may: unfollow one first", max_follows=MAX_FOLLOWS))


def too_many_blocks() -> ApiError:
    """The refusal past :data:`MAX_BLOCKS`."""
    return ApiError("too_many_blocks", _("you block {max_blocks} players, the most one account may: unblock one first", max_blocks=MAX_BLOCKS))


def blocked_pair(username: str, what: str) -> ApiError:
    """The refusal of ``what`` (follow, challenge) between accounts where one blocked the other.

    >>> blocked_pair("Bob", "challenge").message
    'you cannot challenge Bob: one of you blocked the other'
    """
    return ApiError("blocked", _("you cannot {what} {username}: one of you blocked the other", what=what, username=username))


def _listed(item: store.Listed) -> dict[str, Any]:
    return {"user": item.username, "since": stamp_ms(item.since)}


class Relations:
    """Follows and blocks of the site (``app.state.relations``)."""

    def __init__(self, core: TableCore, online_here: OnlineHere | None = None) -> None:
        self.core = core
        #: The accounts with a page socket open in this process (set at wiring: the lobby's).
        self.online_here: OnlineHere = online_here or set

    # -- what other features ask, inside their transaction -------------------------------------

    @staticmethod
    def blocked_between(conn: Connection, a_user_id: int, b_user_id: int) -> bool:
        """Whether one of the two accounts blocked the other."""
        return store.blocked_between(conn, a_user_id, b_user_id)

    @staticmethod
    def blocked_among(conn: Connection, users: Sequence[int]) -> set[frozenset[int]]:
        """The pairs of ``users`` kept apart by a block (an :data:`Apart`)."""
        return store.blocked_among(conn, users)

    @staticmethod
    def account(conn: Connection, username: str) -> Account:
        """The account named ``username`` (``unknown_player`` if none)."""
        found = store.account_named(conn, username)
        if found is None:
            raise unknown_player(username)
        return found

    # -- the routes' side ------------------------------------------------------------------------

    async def follow(self, user: User, username: str) -> dict[str, Any]:
        """Follow ``username`` (following again changes nothing)."""
        def run(conn: Connection, other: Account, now: datetime) -> None:
            if store.is_following(conn, user.id, other.id):
                return
            if store.blocked_between(conn, user.id, other.id):
                raise blocked_pair(other.username, "follow")
            if store.count_follows(conn, user.id) >= MAX_FOLLOWS:
                raise too_many_follows()
            store.add_follow(conn, user.id, other.id, now)

        return await self._change(user, username, "follow", run)

    async def unfollow(self, user: User, username: str) -> dict[str, Any]:
        """Stop following ``username`` (not following is no error)."""
        return await self._change(user, username, "unfollow",
                                  lambda conn, other, now: store.remove_follow(conn, user.id, other.id))

    async def block(self, user: User, username: str) -> dict[str, Any]:
        """Block ``username``: the follows both ways end."""
        def run(conn: Connection, other: Account, now: datetime) -> None:
            if other.id in {b.id for b in store.blocks_of(conn, user.id)}:
                return
            if store.count_blocks(conn, user.id) >= MAX_BLOCKS:
                raise too_many_blocks()
            store.add_block(conn, user.id, other.id, now)

        return await self._change(user, username, "block", run)

    async def unblock(self, user: User, username: str) -> dict[str, Any]:
        """Stop blocking ``username`` (a block the other made stays)."""
        return await self._change(user, username, "unblock",
                                  lambda conn, other, now: store.remove_block(conn, user.id, other.id))

    async def friends(self, user: User) -> dict[str, Any]:
        """The accounts ``user`` follows, each online or not and the game it plays (to watch)."""
        here = self.online_here()

        def read(conn: Connection) -> dict[str, Any]:
            followed = store.follows_of(conn, user.id)
            ids = [f.id for f in followed]
            online = store.at_tables(conn, ids) | (here & set(ids))
            playing = store.playing_at(conn, ids)
            return {"friends": [{**_listed(f), "online": f.id in online, "playing": playing.get(f.id)}
                                for f in followed]}

        return await self.core.db(self.core.repo.read, read)

    async def blocks(self, user: User) -> dict[str, Any]:
        """The accounts ``user`` blocks."""
        return await self.core.db(self.core.repo.read, lambda conn: {
            "blocks": [_listed(b) for b in store.blocks_of(conn, user.id)]})

    async def relation(self, user: User, username: str) -> dict[str, Any]:
        """Where ``user`` stands with ``username`` (``unknown_player`` if no such account)."""
        return await self.core.db(self.core.repo.read, lambda conn: self._relation(conn, user, self.account(conn, username)))

    # -- inside --------------------------------------------------------------------------------------

    @staticmethod
    def _relation(conn: Connection, user: User, other: Account) -> dict[str, Any]:
        blocking = other.id in {b.id for b in store.blocks_of(conn, user.id)}
        return {"user": other.username, "following": store.is_following(conn, user.id, other.id),
                "follows_you": store.is_following(conn, other.id, user.id), "blocking": blocking,
                "blocked": store.blocked_between(conn, user.id, other.id)}

    async def _change(self, user: User, username: str, what: str,
                      change: Callable[[Connection, Account, datetime], None]) -> dict[str, Any]:
        now = self.core.clock.now()

        def run(conn: Connection) -> dict[str, Any]:
            other = self.account(conn, username)
            if other.id == user.id:
                raise not_yourself(what)
            change(conn, other, now)
            return self._relation(conn, user, other)

        return await self.core.db(self.core.repo.write, run)
