"""The decision object of the API, as returned by ``authorize`` and ``get_decision``.

A ``Decision`` is the JSON object the API answered, as a ``dict`` (``d["decision"]``,
``json.dumps(d)``, every field the service sends, also ones newer than this package), with typed
read-only attributes for the fields a caller acts on (``d.decision``, ``d.authorization_token``…)
and ``d.model``: the same object parsed into the generated attrs model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, cast

if TYPE_CHECKING:
    from ._generated.models.decision import Decision as DecisionModel

DecisionOutcome = Literal["approved", "denied", "held"]
DecisionStatus = Literal["approved", "denied", "pending", "expired"]


class Decision(dict[str, Any]):
    """The API's decision object: a dict, with typed attributes for its main fields."""

    @property
    def decision(self) -> DecisionOutcome:
        """``approved`` (pass ``authorization_token`` to the rail), ``denied``, or ``held``."""
        return cast(DecisionOutcome, self["decision"])

    @property
    def decision_id(self) -> str:
        return cast(str, self["decision_id"])

    @property
    def status(self) -> DecisionStatus:
        return cast(DecisionStatus, self["status"])

    @property
    def approved(self) -> bool:
        return self.get("decision") == "approved"

    @property
    def held(self) -> bool:
        """True while a human has not decided (``decision`` ``held``, ``status`` ``pending``)."""
        return self.get("decision") == "held"

    @property
    def authorization_token(self) -> str | None:
        """The signed ``gca_`` token, only when approved."""
        return cast("str | None", self.get("authorization_token"))

    @property
    def reason(self) -> str | None:
        return cast("str | None", self.get("reason"))

    @property
    def reason_code(self) -> str | None:
        return cast("str | None", self.get("reason_code"))

    @property
    def amount(self) -> int:
        return cast(int, self["amount"])

    @property
    def currency(self) -> str:
        return cast(str, self["currency"])

    @property
    def livemode(self) -> bool:
        return cast(bool, self["livemode"])

    @property
    def model(self) -> DecisionModel:
        """The object parsed into the model generated from the OpenAPI document (attrs)."""
        from ._generated.models.decision import Decision as DecisionModel

        return DecisionModel.from_dict(dict(self))

    def __repr__(self) -> str:
        return f"Decision({dict.__repr__(self)})"
