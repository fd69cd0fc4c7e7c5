"""Pydantic models of every request body and WebSocket message the server accepts.

Anything that does not fit is refused with ``bad_request`` before it reaches a table.

>>> parse_action_body(b'{"type": "turn", "cells": ["e5", "a1"], "request_id": "r1"}').cells
['e5', 'a1']
>>> try:
...     parse_action_body(b'{"type": "turn", "cells": "e5", "request_id": "r1"}')
... except ApiError as e:
...     print(e.code, "|", e.message)
bad_request | bad request: turn.cells: Input should be a valid array
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import (
    Field,
    StringConstraints,
    TypeAdapter,
    field_validator,
)

from omega.i18n import translatable as _
from omega.names import check_name
from omega.server.config import DEFAULT_SIZE, LEVEL_RANGE, TABLE_PLAYERS, TABLE_SIZES
from omega.server.errors import ApiError
from omega.server.infra.bodies import Strict, parse
from omega.server.tables.actions import Action, ClaimAction, ResignAction, SwapAction, TurnAction
from omega.server.tables.timecontrol import TimeControl

__all__ = [
    "CreateTable", "HumanSeat", "ComputerSeat", "ActionBody", "NameBody", "ClientMessage", "ChatMessage",
    "RematchMessage", "LinksBody", "parse_links",
    "parse_create", "parse_action_body", "parse_name", "parse_client_message", "to_action",
]

RequestId = Annotated[str, StringConstraints(min_length=1, max_length=128)]
Cell = Annotated[str, StringConstraints(min_length=1, max_length=4)]
#: The version of the table the client saw when it asked (a move made since: ``stale_version``).
Version = Annotated[int, Field(ge=0)]


class HumanSeat(Strict):
    """A seat for a person (who gets a secret invite token)."""

    kind: Literal["human"]


class ComputerSeat(Strict):
    """A seat the computer plays at ``level`` 1 (a beginner) to 12 (strongest): ``omega.ai.levels``."""

    kind: Literal["computer"]
    level: Annotated[int, Field(ge=LEVEL_RANGE.start, le=LEVEL_RANGE.stop - 1)]


Seat = Annotated[HumanSeat | ComputerSeat, Field(discriminator="kind")]


class CreateTable(Strict):
    """``POST /api/tables``."""

    players: Annotated[int, Field(ge=TABLE_PLAYERS.start, le=TABLE_PLAYERS.stop - 1)]
    size: Annotated[int, Field(ge=TABLE_SIZES.start, le=TABLE_SIZES.stop - 1)] = DEFAULT_SIZE
    pie_rule: bool = False
    seats: list[Seat] | None = None
    creator_seat: Annotated[int, Field(ge=0, le=3)] | None = None
    name: str | None = None
    #: The time control's text (``omega.server.tables.timecontrol``); absent: untimed.
    time_control: Annotated[str, StringConstraints(max_length=16)] | None = None
    #: Whether the players may ask the computer for a hint (a casual table's setting).
    hints: bool = False
    #: Whether a player's turn-based clock may be paused here (a vacation); real time never is.
    pausable: bool = True

    _name = field_validator("name")(lambda v: None if v is None else check_name(v))


class _TurnBody(Strict):
    type: Literal["turn"]
    cells: Annotated[list[Cell], Field(min_length=1, max_length=4)]
    request_id: RequestId
    version: Version | None = None


class _BareBody(Strict):
    # The actions that take nothing but their type.
    type: Literal["swap", "resign", "claim"]
    request_id: RequestId
    version: Version | None = None


ActionBody = Annotated[_TurnBody | _BareBody, Field(discriminator="type")]

#: The action each bare body's type asks for.
_BARE_ACTIONS: dict[str, type[SwapAction | ResignAction | ClaimAction]] = {
    "swap": SwapAction, "resign": ResignAction, "claim": ClaimAction}


class NameBody(Strict):
    """``POST /api/tables/{id}/name``."""

    name: str
    _name = field_validator("name")(check_name)


class LinksBody(Strict):
    """``POST /api/tables/{id}/links``: which secrets to make anew (at least one)."""

    invites: bool = False
    spectator: bool = False


class _TurnInner(Strict):
    type: Literal["turn"]
    cells: Annotated[list[Cell], Field(min_length=1, max_length=4)]


class _BareInner(Strict):
    type: Literal["swap", "resign", "claim"]


class _WsAction(Strict):
    type: Literal["action"]
    request_id: RequestId
    action: Annotated[_TurnInner | _BareInner, Field(discriminator="type")]
    version: Version | None = None


class _WsPing(Strict):
    type: Literal["ping"]


class ChatMessage(Strict):
    """A chat message a socket sends (its text is checked by ``chat_text``, which says
    what is wrong in its own words)."""

    type: Literal["chat"]
    text: str
    request_id: RequestId | None = None


class RematchMessage(Strict):
    """A socket's answer about a rematch: propose one, accept or decline the one proposed."""

    type: Literal["rematch"]
    op: Literal["propose", "accept", "decline"]
    request_id: RequestId | None = None


ClientMessage = Annotated[_WsAction | _WsPing | ChatMessage | RematchMessage, Field(discriminator="type")]

_create = TypeAdapter(CreateTable)
_action = TypeAdapter(ActionBody)
_name_body = TypeAdapter(NameBody)
_links_body = TypeAdapter(LinksBody)
_client = TypeAdapter(ClientMessage)


def parse_create(body: bytes) -> CreateTable:
    """The create-table request, checked as a whole (seats, creator seat, pie rule)."""
    req = parse(_create, body)
    if req.pie_rule and req.players != 2:
        raise ApiError("bad_request", _("bad request: the pie rule is a 2-player option"))
    seats: list[HumanSeat | ComputerSeat] = (
        req.seats if req.seats is not None else [HumanSeat(kind="human") for _ in range(req.players)])
    if len(seats) != req.players:
        raise ApiError("bad_request", _("bad request: seats must list exactly {players} seats", players=req.players))
    humans = [i for i, s in enumerate(seats) if s.kind == "human"]
    if not humans:
        raise ApiError("bad_request", _("bad request: at least one seat must be human"))
    if req.creator_seat is not None and req.creator_seat not in humans:
        raise ApiError("bad_request", _("bad request: creator_seat must be a human seat"))
    try:
        req.time_control = TimeControl.parse(req.time_control).text
    except ValueError as e:
        raise ApiError("bad_request", _("bad request: {e}", e=e)) from None
    req.seats = seats
    return req


def parse_action_body(body: bytes) -> _TurnBody | _BareBody:
    """``POST /api/tables/{id}/actions``."""
    return parse(_action, body)


def parse_name(body: bytes) -> str:
    """``POST /api/tables/{id}/name``: the new display name."""
    return parse(_name_body, body).name


def parse_links(body: bytes) -> LinksBody:
    """``POST /api/tables/{id}/links``: what to make anew.

    >>> parse_links(b'{"spectator": true}')
    LinksBody(invites=False, spectator=True)
    """
    req = parse(_links_body, body)
    if not (req.invites or req.spectator):
        raise ApiError("bad_request", _("bad request: ask for new invites, a new spectator link, or both"))
    return req


def parse_client_message(text: str | bytes) -> _WsAction | _WsPing | ChatMessage | RematchMessage:
    """A message a WebSocket client sent."""
    return parse(_client, text)


def to_action(body: _TurnBody | _BareBody | _TurnInner | _BareInner) -> Action:
    """The table action a validated body asks for.

    >>> to_action(parse_action_body(b'{"type": "claim", "request_id": "c1"}'))
    ClaimAction()
    """
    if isinstance(body, (_TurnBody, _TurnInner)):
        return TurnAction(cells=tuple(body.cells))
    return _BARE_ACTIONS[body.type]()
