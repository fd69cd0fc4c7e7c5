"""Every feature's ORM models, on the one :class:`~omega.server.infra.db.Base`: importing
this module fills ``Base.metadata`` with every table of the schema, the one the Alembic
history (``migrations/``) makes.  A new feature's models are imported here too.

>>> {'chat', 'due', 'events', 'presence', 'tables', 'users'} <= set(Base.metadata.tables)
True
"""

from __future__ import annotations

from omega.server.accounts.models import PasswordResetRow, RoleRow, SessionRow, UserRow
from omega.server.analysis.models import BoardRow, EvaluationRow
from omega.server.challenges.models import ChallengeRow
from omega.server.infra.db import Base
from omega.server.infra.due import DueRow
from omega.server.infra.servers import ServerRow
from omega.server.leaving.models import ClosureRow
from omega.server.lobby.models import OpeningRow
from omega.server.lobby.quickplay import QueueRow
from omega.server.moderation.models import ActionRow, ReportRow
from omega.server.notify.models import DeliveryRow, DigestRow, SettingsRow, SiteKeyRow
from omega.server.notify.outbox import OutboxRow
from omega.server.push.models import SubscriptionRow, VapidKeyRow
from omega.server.puzzles.models import PuzzleAttemptRow, PuzzleRatingRow, PuzzleRow
from omega.server.ratings.models import (
          FairPlayFlagRow,
          RatedGameRow,
          RatingChangeRow,
          RatingRevertRow,
          RatingRow,
          UnratedGameRow,
)
from omega.server.relations.models import BlockRow, FollowRow
from omega.server.social.models import ChatRow, RematchRow
from omega.server.tables.models import EventRow, PresenceRow, SeatRow, TableRow
from omega.server.tournaments.models import ByeRow, EntryRow, RoundRow, TournamentGameRow, TournamentRow
from omega.server.vacation.models import VacationRow
from omega.server.watch.models import WatchSettingRow
from omega.server.work.reviews import ReviewRow

__all__ = ["Base", "MODELS"]

#: The models of every feature.
MODELS = (TableRow, SeatRow, EventRow, PresenceRow, UserRow, SessionRow, PasswordResetRow, ServerRow, DueRow, ReviewRow, ChatRow,
          RematchRow, RatingRow, RatedGameRow, RatingChangeRow, QueueRow, OpeningRow, UnratedGameRow, FairPlayFlagRow,
          OutboxRow, DeliveryRow, SettingsRow, DigestRow, SiteKeyRow, VapidKeyRow, SubscriptionRow, VacationRow,
          RoleRow, TournamentRow, EntryRow, RoundRow, TournamentGameRow, ByeRow, FollowRow, BlockRow, ChallengeRow,
          ReportRow, ActionRow, RatingRevertRow, WatchSettingRow, ClosureRow, BoardRow, EvaluationRow,
          PuzzleRow, PuzzleRatingRow, PuzzleAttemptRow)
