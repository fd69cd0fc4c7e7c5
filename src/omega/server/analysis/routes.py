"""The analysis board's routes (``docs/server-api.md``, Analysis boards) and its pages
(``/analysis`` for a new board, ``/analysis/{id}`` for a saved or shared one); ``setup``
wires the service.

>>> sorted({r.path for r in router.routes})  # doctest: +NORMALIZE_WHITESPACE
['/analysis', '/analysis/{board_id}', '/api/analysis', '/api/analysis/evaluate', '/api/analysis/{board_id}',
 '/api/analysis/{board_id}/copy', '/api/analysis/{board_id}/record.txt', '/api/tables/{table_id}/analysis']
"""

# No ``from __future__ import annotations``: FastAPI reads the routes' annotations.
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Request
from fastapi.responses import JSONResponse, PlainTextResponse

from omega.server.accounts.routes import USER_CHARGED, cookie_writer, current_user
from omega.server.accounts.service import User
from omega.server.analysis.evaluate import Budget, Evaluations
from omega.server.analysis.schemas import (
    TREE_BODY_MAX,
    parse_from_game,
    parse_new,
    parse_position,
    parse_save,
)
from omega.server.analysis.service import Boards, Owner
from omega.server.infra.limits import owner_key, read_body
from omega.server.infra.scheduler import Scheduler
from omega.server.infra.state import from_app
from omega.server.site import index
from omega.server.tables.core import TableCore
from omega.server.tables.deps import Reader, credentials_of
from omega.server.work.computers import ComputerPlayers

__all__ = ["router", "setup", "install_worker", "PURGE", "PURGE_EVERY"]

#: The recurring work that forgets old evaluations asked of other processes, and how often.
PURGE = "analysis_purge"
PURGE_EVERY = 3600.0

router = APIRouter()
# The page opens these paths itself (js/main.js).
router.add_api_route("/analysis", index, methods=["GET", "HEAD"], include_in_schema=False)
router.add_api_route("/analysis/{board_id}", index, methods=["GET", "HEAD"], include_in_schema=False)


def setup(app: FastAPI, core: TableCore, scheduler: Scheduler, computers: ComputerPlayers | None, queue: int,
          budget: Budget | None = None) -> Boards:
    """The analysis boards of the app (``app.state.analysis``); evaluations are searched by
    ``computers`` (None: by another process's, on PostgreSQL; else ``unavailable``) and
    refused ``busy`` past ``queue`` turns waiting for them."""
    evaluations = install_worker(core, scheduler, computers, queue, budget)
    boards = Boards(core, evaluations)
    app.state.analysis = boards
    return boards


def install_worker(core: TableCore, scheduler: Scheduler, computers: ComputerPlayers | None, queue: int,
                   budget: Budget | None = None) -> Evaluations:
    """The evaluations of a process (a server's, or ``omega worker``'s): with computer
    players it evaluates the positions asked at servers without them; every process purges
    the old ones once an hour."""
    evaluations = Evaluations(core, computers, queue, budget)
    if computers is not None:
        evaluations.search_in(scheduler)
    scheduler.every(PURGE, PURGE_EVERY, evaluations.purge)
    return evaluations


Service = Annotated[Boards, from_app("analysis")]


def _owner(request: Request, user: User | None) -> Owner:
    """The caller: the account, the key its share counts by, and the board key it shows
    (``Authorization: Bearer``)."""
    user_id = user.id if user is not None else None
    return Owner(user_id, owner_key(request, user_id), credentials_of(request).token)


#: The caller of a read, and of a write (a session cookie's write must come from the site).
ReadingOwner = Annotated[User | None, Depends(current_user)]
WritingOwner = Annotated[User | None, Depends(cookie_writer)]


@router.post("/api/analysis/evaluate", dependencies=[USER_CHARGED])
async def evaluate(request: Request, user: WritingOwner, boards: Service) -> dict[str, Any]:
    body = parse_position(await read_body(request, TREE_BODY_MAX))
    return await boards.evaluate(_owner(request, user), body)


@router.post("/api/analysis", dependencies=[USER_CHARGED])
async def new_board(request: Request, user: WritingOwner, boards: Service) -> JSONResponse:
    body = parse_new(await read_body(request, request.app.state.limits.max_message))
    return JSONResponse(await boards.create(_owner(request, user), body), status_code=201)


@router.post("/api/tables/{table_id}/analysis")
async def board_of_game(request: Request, table_id: str, reader: Reader, user: WritingOwner, boards: Service) -> JSONResponse:
    body = parse_from_game(await read_body(request, request.app.state.limits.max_message))
    # The table's token proves the reader; the board belongs to the account, or to its key.
    who = Owner(user.id if user is not None else None, owner_key(request, user.id if user is not None else None), None)
    return JSONResponse(await boards.from_game(who, table_id, reader, body), status_code=201)


@router.get("/api/analysis/{board_id}", dependencies=[USER_CHARGED])
async def read_board(request: Request, board_id: str, user: ReadingOwner, boards: Service) -> dict[str, Any]:
    return await boards.read(_owner(request, user), board_id)


@router.post("/api/analysis/{board_id}", dependencies=[USER_CHARGED])
async def save_board(request: Request, board_id: str, user: WritingOwner, boards: Service) -> dict[str, Any]:
    body = parse_save(await read_body(request, TREE_BODY_MAX))
    return await boards.save(_owner(request, user), board_id, body)


@router.post("/api/analysis/{board_id}/copy", dependencies=[USER_CHARGED])
async def copy_board(request: Request, board_id: str, user: WritingOwner, boards: Service) -> JSONResponse:
    return JSONResponse(await boards.copy(_owner(request, user), board_id), status_code=201)


@router.get("/api/analysis/{board_id}/record.txt", dependencies=[USER_CHARGED])
async def board_record(board_id: str, boards: Service) -> PlainTextResponse:
    text = await boards.record(board_id)
    return PlainTextResponse(text, headers={"Content-Disposition": f'attachment; filename="omega-analysis-{board_id}.txt"'})
