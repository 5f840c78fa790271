from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.post_v1_policies_simulate_body_policy import (
        PostV1PoliciesSimulateBodyPolicy,
    )
    from ..models.post_v1_policies_simulate_body_requests_item import (
        PostV1PoliciesSimulateBodyRequestsItem,
    )


T = TypeVar("T", bound="PostV1PoliciesSimulateBody")


@_attrs_define
class PostV1PoliciesSimulateBody:
    """
    Attributes:
        policy (PostV1PoliciesSimulateBodyPolicy | Unset):
        policy_id (str | Unset):
        requests (list[PostV1PoliciesSimulateBodyRequestsItem] | Unset):
        from_ (datetime.datetime | Unset):
        to (datetime.datetime | Unset):
        agent_id (str | Unset):
    """

    policy: PostV1PoliciesSimulateBodyPolicy | Unset = UNSET
    policy_id: str | Unset = UNSET
    requests: list[PostV1PoliciesSimulateBodyRequestsItem] | Unset = UNSET
    from_: datetime.datetime | Unset = UNSET
    to: datetime.datetime | Unset = UNSET
    agent_id: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        policy: dict[str, Any] | Unset = UNSET
        if not isinstance(self.policy, Unset):
            policy = self.policy.to_dict()

        policy_id = self.policy_id

        requests: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.requests, Unset):
            requests = []
            for requests_item_data in self.requests:
                requests_item = requests_item_data.to_dict()
                requests.append(requests_item)

        from_: str | Unset = UNSET
        if not isinstance(self.from_, Unset):
            from_ = self.from_.isoformat()

        to: str | Unset = UNSET
        if not isinstance(self.to, Unset):
            to = self.to.isoformat()

        agent_id = self.agent_id

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if policy is not UNSET:
            field_dict["policy"] = policy
        if policy_id is not UNSET:
            field_dict["policy_id"] = policy_id
        if requests is not UNSET:
            field_dict["requests"] = requests
        if from_ is not UNSET:
            field_dict["from"] = from_
        if to is not UNSET:
            field_dict["to"] = to
        if agent_id is not UNSET:
            field_dict["agent_id"] = agent_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.post_v1_policies_simulate_body_policy import (
            PostV1PoliciesSimulateBodyPolicy,
        )
        from ..models.post_v1_policies_simulate_body_requests_item import (
            PostV1PoliciesSimulateBodyRequestsItem,
        )

        d = dict(src_dict)
        _policy = d.pop("policy", UNSET)
        policy: PostV1PoliciesSimulateBodyPolicy | Unset
        if isinstance(_policy, Unset):
            policy = UNSET
        else:
            policy = PostV1PoliciesSimulateBodyPolicy.from_dict(_policy)

        policy_id = d.pop("policy_id", UNSET)

        _requests = d.pop("requests", UNSET)
        requests: list[PostV1PoliciesSimulateBodyRequestsItem] | Unset = UNSET
        if _requests is not UNSET:
            requests = []
            for requests_item_data in _requests:
                requests_item = PostV1PoliciesSimulateBodyRequestsItem.from_dict(
                    requests_item_data
                )

                requests.append(requests_item)

        _from_ = d.pop("from", UNSET)
        from_: datetime.datetime | Unset
        if isinstance(_from_, Unset):
            from_ = UNSET
        else:
            from_ = datetime.datetime.fromisoformat(_from_)

        _to = d.pop("to", UNSET)
        to: datetime.datetime | Unset
        if isinstance(_to, Unset):
            to = UNSET
        else:
            to = datetime.datetime.fromisoformat(_to)

        agent_id = d.pop("agent_id", UNSET)

        post_v1_policies_simulate_body = cls(
            policy=policy,
            policy_id=policy_id,
            requests=requests,
            from_=from_,
            to=to,
            agent_id=agent_id,
        )

        return post_v1_policies_simulate_body
