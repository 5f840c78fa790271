from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="PostVaultsBody")


@_attrs_define
class PostVaultsBody:
    """
    Attributes:
        name (str):
        agent_id (str):
        daily_limit (float | str): Decimal major units (USD): a JSON number or a numeric string, at most two decimal
            places, above 0 to 9999999999999.99
        max_single_transaction (float | str): Decimal major units (USD): a JSON number or a numeric string, at most two
            decimal places, above 0 to 9999999999999.99
        require_approval_above (float | None | str | Unset): Decimal major units (USD): a JSON number or a numeric
            string, at most two decimal places, 0 to 9999999999999.99
    """

    name: str
    agent_id: str
    daily_limit: float | str
    max_single_transaction: float | str
    require_approval_above: float | None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        agent_id = self.agent_id

        daily_limit: float | str
        daily_limit = self.daily_limit

        max_single_transaction: float | str
        max_single_transaction = self.max_single_transaction

        require_approval_above: float | None | str | Unset
        if isinstance(self.require_approval_above, Unset):
            require_approval_above = UNSET
        else:
            require_approval_above = self.require_approval_above

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
                "agent_id": agent_id,
                "daily_limit": daily_limit,
                "max_single_transaction": max_single_transaction,
            }
        )
        if require_approval_above is not UNSET:
            field_dict["require_approval_above"] = require_approval_above

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        name = d.pop("name")

        agent_id = d.pop("agent_id")

        def _parse_daily_limit(data: object) -> float | str:
            return cast(float | str, data)

        daily_limit = _parse_daily_limit(d.pop("daily_limit"))

        def _parse_max_single_transaction(data: object) -> float | str:
            return cast(float | str, data)

        max_single_transaction = _parse_max_single_transaction(
            d.pop("max_single_transaction")
        )

        def _parse_require_approval_above(data: object) -> float | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | str | Unset, data)

        require_approval_above = _parse_require_approval_above(
            d.pop("require_approval_above", UNSET)
        )

        post_vaults_body = cls(
            name=name,
            agent_id=agent_id,
            daily_limit=daily_limit,
            max_single_transaction=max_single_transaction,
            require_approval_above=require_approval_above,
        )

        return post_vaults_body
