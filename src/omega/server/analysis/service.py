"""The analysis boards (``docs/server-api.md``, Analysis boards): made empty, from a finished
game's position or as a copy of another board; read by anyone holding the link; changed only
by their owner (the account that made them, or whoever holds the key given at making);
exported as a text record with variations (``omega.record.format_tree``).

>>> who = Owner(user_id=None, key="127.0.0.1", board_key=None)
>>> may_change(who, None, "x" * 64), may_change(Owner(7, "user:7", None), 7, "x" * 64)
(False, True)
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from typing import Any

from omega.game import Game
from omega.i18n import translatable as _
from omega.record import VariationTree, format_tree
from omega.server.analysis.evaluate import Evaluations
from omega.server.analysis.schemas import FromGame, NewBoard, Position, SaveTree
from omega.server.analysis.store import Stored, add_board, board, boards_of, save_nodes
from omega.server.errors import ApiError
from omega.server.tables.core import TableCore
from omega.server.tables.identity import Identity, hash_token

__all__ = ["Boards", "Owner", "may_change", "BOARDS_PER_OWNER", "NOT_FOUND"]

#: Boards one owner (an account, or a guest's address) may keep.
BOARDS_PER_OWNER = 200
#: The answer for a board id nobody made (or a link mistyped).
NOT_FOUND = _("no analysis board at this link")


@dataclass(frozen=True)
class Owner:
    """Who asks: their account (None: a guest), the key their share of the site counts by
    (``infra.limits.owner_key``), and the board key they show, if any."""

    user_id: int | None
    key: str
    board_key: str | None


def may_change(who: Owner, user_id: int | None, key_hash: str) -> bool:
    """Whether ``who`` may change a board of account ``user_id`` whose key hashes to ``key_hash``."""
    if who.user_id is not None and who.user_id == user_id:
        return True
    return who.board_key is not None and secrets.compare_digest(hash_token(who.board_key), key_hash)


def _view(stored: Stored, who: Owner) -> dict[str, Any]:
    return {
        "id": stored.id, "players": stored.players, "size": stored.size, "pie_rule": stored.pie_rule,
        "nodes": json.loads(stored.nodes), "start": stored.start, "source_table": stored.source_table,
        "version": stored.version, "editable": may_change(who, stored.user_id, stored.key_hash),
        "path": f"/analysis/{stored.id}",
    }


class Boards:
    """The analysis boards of the site, and the evaluations of their positions."""

    def __init__(self, core: TableCore, evaluations: Evaluations) -> None:
        self.core = core
        self.evaluations = evaluations

    async def _make(self, who: Owner, tree: VariationTree, start: int, source: str | None) -> dict[str, Any]:
        # Counted by a digest of the owner's key: a guest's address is not kept with the board.
        counted = hash_token(who.key)
        if await self.core.db(boards_of, self.core.repo, counted) >= BOARDS_PER_OWNER:
            raise ApiError("too_many_boards", _("you keep {count} analysis boards already", count=BOARDS_PER_OWNER))
        key = secrets.token_urlsafe(24)
        stored = Stored(secrets.token_urlsafe(16), who.user_id, counted, hash_token(key), tree.players, tree.size,
                        tree.pie_rule, json.dumps(tree.nodes(), separators=(",", ":")), start, source, 1)
        await self.core.db(add_board, self.core.repo, stored, self.core.clock.now())
        return {"board": _view(stored, Owner(who.user_id, who.key, key)), "key": key}

    async def create(self, who: Owner, body: NewBoard) -> dict[str, Any]:
        """A new empty board; its view and its key (shown once)."""
        return await self._make(who, VariationTree(body.players, body.size, body.pie_rule), 0, None)

    async def from_game(self, who: Owner, table_id: str, reader: Identity, body: FromGame) -> dict[str, Any]:
        """A board holding the finished game of ``table_id`` (read by ``reader``) as its main
        line, opened at the position after ``body.ply`` entries."""
        await self.core.visit(table_id, reader)
        state = (await self.core.fresh(table_id)).state
        if not state.over:
            raise ApiError("forbidden", _("a game opens on the analysis board once it is over"))
        game = state.game
        ply = len(game.history) if body.ply is None else body.ply
        if ply > len(game.history):
            raise ApiError("bad_request", _("bad request: ply: the game has {count} entries", count=len(game.history)))
        tree = VariationTree.of_game(Game.from_history(game.history, game.players, game.size, game.pie_rule))
        return await self._make(who, tree, ply, table_id)

    async def _stored(self, board_id: str) -> Stored:
        found = await self.core.db(board, self.core.repo, board_id) if 0 < len(board_id) <= 32 else None
        if found is None:
            raise ApiError("not_found", NOT_FOUND)
        return found

    async def read(self, who: Owner, board_id: str) -> dict[str, Any]:
        """The board as ``who`` sees it (``editable``: whether they may change it)."""
        return _view(await self._stored(board_id), who)

    async def copy(self, who: Owner, board_id: str) -> dict[str, Any]:
        """A new board of ``who`` holding what ``board_id`` holds now."""
        stored = await self._stored(board_id)
        tree = VariationTree.from_nodes(stored.players, stored.size, stored.pie_rule, json.loads(stored.nodes))
        return await self._make(who, tree, stored.start, stored.source_table)

    async def save(self, who: Owner, board_id: str, body: SaveTree) -> dict[str, Any]:
        """Replace the board's tree (its owner only), over the version the page had."""
        stored = await self._stored(board_id)
        if not may_change(who, stored.user_id, stored.key_hash):
            raise ApiError("forbidden", _("only the board's owner may change it; copy it to make your own"))
        try:
            tree = VariationTree.from_nodes(stored.players, stored.size, stored.pie_rule, body.nodes)
        except ValueError as e:
            raise ApiError("bad_request", _("bad request: nodes: {problem}", problem=e)) from None
        nodes = json.dumps(tree.nodes(), separators=(",", ":"))
        version = await self.core.db(save_nodes, self.core.repo, board_id, nodes, body.version, self.core.clock.now())
        if version is None:
            raise ApiError("stale_version", _("the board was saved from another page since; reload it"))
        return {"version": version}

    async def record(self, board_id: str) -> str:
        """The board's tree as a text record with variations."""
        stored = await self._stored(board_id)
        tags = {"Event": "Analysis board", "Board": stored.id}
        if stored.source_table is not None:
            tags["Table"] = stored.source_table
        tree = VariationTree.from_nodes(stored.players, stored.size, stored.pie_rule, json.loads(stored.nodes), tags)
        return format_tree(tree)

    async def evaluate(self, who: Owner, body: Position) -> dict[str, Any]:
        """The evaluation of the position ``body`` reaches, charged to ``who``."""
        try:
            game = Game.from_history(body.actions, body.players, body.size, body.pie_rule)
        except ValueError as e:
            raise ApiError("illegal_move", _("actions: {problem}", problem=e)) from None
        return await self.evaluations.evaluate(who.key, body.stream, game)
