from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.post_v1_mandates_body_execution_window import (
        PostV1MandatesBodyExecutionWindow,
    )
    from ..models.post_v1_mandates_body_metadata import PostV1MandatesBodyMetadata
    from ..models.post_v1_mandates_body_payees_item import PostV1MandatesBodyPayeesItem
    from ..models.post_v1_mandates_body_payment_instruments_item import (
        PostV1MandatesBodyPaymentInstrumentsItem,
    )
    from ..models.post_v1_mandates_body_recurrence import PostV1MandatesBodyRecurrence


T = TypeVar("T", bound="PostV1MandatesBody")


@_attrs_define
class PostV1MandatesBody:
    """
    Attributes:
        agent_id (str):
        open_checkout_hash (str): The checkout the mandate is for: `payment.reference`'s `conditional_transaction_id`
        payees (list[PostV1MandatesBodyPayeesItem]):
        agent_key_id (str | Unset): An active P-256 key of the agent (DECISIONS §19): the mandate's `cnf`. Omitted: the
            agent's only one
        amount_max (int | Unset): Largest payment, minor units; at most the policy's `budget_single_max`, which is the
            default
        amount_min (int | Unset): Smallest payment, minor units; at most `amount_max`
        budget (int | Unset): Total over every use, minor units (`payment.budget`, written in major units as AP2 reads
            it)
        recurrence (PostV1MandatesBodyRecurrence | Unset): Needs `budget`. Without it the mandate is single-use
        execution_window (PostV1MandatesBodyExecutionWindow | Unset):
        payment_instruments (list[PostV1MandatesBodyPaymentInstrumentsItem] | Unset):
        category (str | Unset):
        expires_in (int | Unset): Seconds until the mandate expires Default: 3600.
        metadata (PostV1MandatesBodyMetadata | Unset):
    """

    agent_id: str
    open_checkout_hash: str
    payees: list[PostV1MandatesBodyPayeesItem]
    agent_key_id: str | Unset = UNSET
    amount_max: int | Unset = UNSET
    amount_min: int | Unset = UNSET
    budget: int | Unset = UNSET
    recurrence: PostV1MandatesBodyRecurrence | Unset = UNSET
    execution_window: PostV1MandatesBodyExecutionWindow | Unset = UNSET
    payment_instruments: list[PostV1MandatesBodyPaymentInstrumentsItem] | Unset = UNSET
    category: str | Unset = UNSET
    expires_in: int | Unset = 3600
    metadata: PostV1MandatesBodyMetadata | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        agent_id = self.agent_id

        open_checkout_hash = self.open_checkout_hash

        payees = []
        for payees_item_data in self.payees:
            payees_item = payees_item_data.to_dict()
            payees.append(payees_item)

        agent_key_id = self.agent_key_id

        amount_max = self.amount_max

        amount_min = self.amount_min

        budget = self.budget

        recurrence: dict[str, Any] | Unset = UNSET
        if not isinstance(self.recurrence, Unset):
            recurrence = self.recurrence.to_dict()

        execution_window: dict[str, Any] | Unset = UNSET
        if not isinstance(self.execution_window, Unset):
            execution_window = self.execution_window.to_dict()

        payment_instruments: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.payment_instruments, Unset):
            payment_instruments = []
            for payment_instruments_item_data in self.payment_instruments:
                payment_instruments_item = payment_instruments_item_data.to_dict()
                payment_instruments.append(payment_instruments_item)

        category = self.category

        expires_in = self.expires_in

        metadata: dict[str, Any] | Unset = UNSET
        if not isinstance(self.metadata, Unset):
            metadata = self.metadata.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "agent_id": agent_id,
                "open_checkout_hash": open_checkout_hash,
                "payees": payees,
            }
        )
        if agent_key_id is not UNSET:
            field_dict["agent_key_id"] = agent_key_id
        if amount_max is not UNSET:
            field_dict["amount_max"] = amount_max
        if amount_min is not UNSET:
            field_dict["amount_min"] = amount_min
        if budget is not UNSET:
            field_dict["budget"] = budget
        if recurrence is not UNSET:
            field_dict["recurrence"] = recurrence
        if execution_window is not UNSET:
            field_dict["execution_window"] = execution_window
        if payment_instruments is not UNSET:
            field_dict["payment_instruments"] = payment_instruments
        if category is not UNSET:
            field_dict["category"] = category
        if expires_in is not UNSET:
            field_dict["expires_in"] = expires_in
        if metadata is not UNSET:
            field_dict["metadata"] = metadata

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.post_v1_mandates_body_execution_window import (
            PostV1MandatesBodyExecutionWindow,
        )
        from ..models.post_v1_mandates_body_metadata import PostV1MandatesBodyMetadata
        from ..models.post_v1_mandates_body_payees_item import (
            PostV1MandatesBodyPayeesItem,
        )
        from ..models.post_v1_mandates_body_payment_instruments_item import (
            PostV1MandatesBodyPaymentInstrumentsItem,
        )
        from ..models.post_v1_mandates_body_recurrence import (
            PostV1MandatesBodyRecurrence,
        )

        d = dict(src_dict)
        agent_id = d.pop("agent_id")

        open_checkout_hash = d.pop("open_checkout_hash")

        payees = []
        _payees = d.pop("payees")
        for payees_item_data in _payees:
            payees_item = PostV1MandatesBodyPayeesItem.from_dict(payees_item_data)

            payees.append(payees_item)

        agent_key_id = d.pop("agent_key_id", UNSET)

        amount_max = d.pop("amount_max", UNSET)

        amount_min = d.pop("amount_min", UNSET)

        budget = d.pop("budget", UNSET)

        _recurrence = d.pop("recurrence", UNSET)
        recurrence: PostV1MandatesBodyRecurrence | Unset
        if isinstance(_recurrence, Unset):
            recurrence = UNSET
        else:
            recurrence = PostV1MandatesBodyRecurrence.from_dict(_recurrence)

        _execution_window = d.pop("execution_window", UNSET)
        execution_window: PostV1MandatesBodyExecutionWindow | Unset
        if isinstance(_execution_window, Unset):
            execution_window = UNSET
        else:
            execution_window = PostV1MandatesBodyExecutionWindow.from_dict(
                _execution_window
            )

        _payment_instruments = d.pop("payment_instruments", UNSET)
        payment_instruments: list[PostV1MandatesBodyPaymentInstrumentsItem] | Unset = (
            UNSET
        )
        if _payment_instruments is not UNSET:
            payment_instruments = []
            for payment_instruments_item_data in _payment_instruments:
                payment_instruments_item = (
                    PostV1MandatesBodyPaymentInstrumentsItem.from_dict(
                        payment_instruments_item_data
                    )
                )

                payment_instruments.append(payment_instruments_item)

        category = d.pop("category", UNSET)

        expires_in = d.pop("expires_in", UNSET)

        _metadata = d.pop("metadata", UNSET)
        metadata: PostV1MandatesBodyMetadata | Unset
        if isinstance(_metadata, Unset):
            metadata = UNSET
        else:
            metadata = PostV1MandatesBodyMetadata.from_dict(_metadata)

        post_v1_mandates_body = cls(
            agent_id=agent_id,
            open_checkout_hash=open_checkout_hash,
            payees=payees,
            agent_key_id=agent_key_id,
            amount_max=amount_max,
            amount_min=amount_min,
            budget=budget,
            recurrence=recurrence,
            execution_window=execution_window,
            payment_instruments=payment_instruments,
            category=category,
            expires_in=expires_in,
            metadata=metadata,
        )

        return post_v1_mandates_body
