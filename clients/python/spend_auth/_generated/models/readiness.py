from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.readiness_database import ReadinessDatabase
from ..models.readiness_status import ReadinessStatus
from ..models.readiness_workflow_engine import ReadinessWorkflowEngine
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.readiness_outbox import ReadinessOutbox


T = TypeVar("T", bound="Readiness")


@_attrs_define
class Readiness:
    """Readiness: the database, the workflow engine and the outbox lag.

    Attributes:
        status (ReadinessStatus): `ready` when the database answers (HTTP 200); `degraded` when it does but the workflow
            engine is down (HTTP 200: authorize works, held requests wait and approve answers 503); `unavailable` when the
            database does not answer (HTTP 503)
        database (ReadinessDatabase):
        workflow_engine (ReadinessWorkflowEngine): Reported, never required: authorize works without it
        outbox (ReadinessOutbox | Unset): Absent when the database is down
    """

    status: ReadinessStatus
    database: ReadinessDatabase
    workflow_engine: ReadinessWorkflowEngine
    outbox: ReadinessOutbox | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        status = self.status.value

        database = self.database.value

        workflow_engine = self.workflow_engine.value

        outbox: dict[str, Any] | Unset = UNSET
        if not isinstance(self.outbox, Unset):
            outbox = self.outbox.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "status": status,
                "database": database,
                "workflow_engine": workflow_engine,
            }
        )
        if outbox is not UNSET:
            field_dict["outbox"] = outbox

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.readiness_outbox import ReadinessOutbox

        d = dict(src_dict)
        status = ReadinessStatus(d.pop("status"))

        database = ReadinessDatabase(d.pop("database"))

        workflow_engine = ReadinessWorkflowEngine(d.pop("workflow_engine"))

        _outbox = d.pop("outbox", UNSET)
        outbox: ReadinessOutbox | Unset
        if isinstance(_outbox, Unset):
            outbox = UNSET
        else:
            outbox = ReadinessOutbox.from_dict(_outbox)

        readiness = cls(
            status=status,
            database=database,
            workflow_engine=workflow_engine,
            outbox=outbox,
        )

        return readiness
