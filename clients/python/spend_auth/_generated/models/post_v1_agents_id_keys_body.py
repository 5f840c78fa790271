from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.post_v1_agents_id_keys_body_jwk import PostV1AgentsIdKeysBodyJwk


T = TypeVar("T", bound="PostV1AgentsIdKeysBody")


@_attrs_define
class PostV1AgentsIdKeysBody:
    """
    Attributes:
        jwk (PostV1AgentsIdKeysBodyJwk): The public key, a JWK: `{kty: "OKP", crv: "Ed25519", x}` or `{kty: "EC", crv:
            "P-256", x, y}`. Other members are dropped, except `d` (a private key: refused) and `kid` (refused unless it is
            the thumbprint)
        directory_url (str | Unset): An https origin (scheme `https`, a host, an optional port; no path, query or
            fragment) serving the key directory at `/.well-known/http-message-signatures-directory`, which must list this
            key
        name (str | Unset):
    """

    jwk: PostV1AgentsIdKeysBodyJwk
    directory_url: str | Unset = UNSET
    name: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        jwk = self.jwk.to_dict()

        directory_url = self.directory_url

        name = self.name

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "jwk": jwk,
            }
        )
        if directory_url is not UNSET:
            field_dict["directory_url"] = directory_url
        if name is not UNSET:
            field_dict["name"] = name

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.post_v1_agents_id_keys_body_jwk import PostV1AgentsIdKeysBodyJwk

        d = dict(src_dict)
        jwk = PostV1AgentsIdKeysBodyJwk.from_dict(d.pop("jwk"))

        directory_url = d.pop("directory_url", UNSET)

        name = d.pop("name", UNSET)

        post_v1_agents_id_keys_body = cls(
            jwk=jwk,
            directory_url=directory_url,
            name=name,
        )

        return post_v1_agents_id_keys_body
