from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.post_v1_agents_id_keys_body_jwk_crv import PostV1AgentsIdKeysBodyJwkCrv
from ..models.post_v1_agents_id_keys_body_jwk_kty import PostV1AgentsIdKeysBodyJwkKty
from ..types import UNSET, Unset

T = TypeVar("T", bound="PostV1AgentsIdKeysBodyJwk")


@_attrs_define
class PostV1AgentsIdKeysBodyJwk:
    """The public key, a JWK: `{kty: "OKP", crv: "Ed25519", x}` or `{kty: "EC", crv: "P-256", x, y}`. Other members are
    dropped, except `d` (a private key: refused) and `kid` (refused unless it is the thumbprint)

        Attributes:
            kty (PostV1AgentsIdKeysBodyJwkKty):
            crv (PostV1AgentsIdKeysBodyJwkCrv):
            x (str):
            y (str | Unset): P-256 only
            kid (str | Unset): If given, the key's RFC 7638 SHA-256 thumbprint
    """

    kty: PostV1AgentsIdKeysBodyJwkKty
    crv: PostV1AgentsIdKeysBodyJwkCrv
    x: str
    y: str | Unset = UNSET
    kid: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        kty = self.kty.value

        crv = self.crv.value

        x = self.x

        y = self.y

        kid = self.kid

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "kty": kty,
                "crv": crv,
                "x": x,
            }
        )
        if y is not UNSET:
            field_dict["y"] = y
        if kid is not UNSET:
            field_dict["kid"] = kid

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        kty = PostV1AgentsIdKeysBodyJwkKty(d.pop("kty"))

        crv = PostV1AgentsIdKeysBodyJwkCrv(d.pop("crv"))

        x = d.pop("x")

        y = d.pop("y", UNSET)

        kid = d.pop("kid", UNSET)

        post_v1_agents_id_keys_body_jwk = cls(
            kty=kty,
            crv=crv,
            x=x,
            y=y,
            kid=kid,
        )

        post_v1_agents_id_keys_body_jwk.additional_properties = d
        return post_v1_agents_id_keys_body_jwk

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
