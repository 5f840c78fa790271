from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.jwks_keys_item_type_0 import JWKSKeysItemType0
    from ..models.jwks_keys_item_type_1 import JWKSKeysItemType1


T = TypeVar("T", bound="JWKS")


@_attrs_define
class JWKS:
    """The JSON Web Key Set that verifies `gca_` tokens, audit checkpoints, AP2 mandates and payment receipts offline.

    Attributes:
        keys (list[JWKSKeysItemType0 | JWKSKeysItemType1]): The token keys (Ed25519, the current one first), then the
            mandate keys (P-256, the current one first); a verifier picks its key by `kid` (and `alg`), never by position
    """

    keys: list[JWKSKeysItemType0 | JWKSKeysItemType1]

    def to_dict(self) -> dict[str, Any]:
        from ..models.jwks_keys_item_type_0 import JWKSKeysItemType0

        keys = []
        for keys_item_data in self.keys:
            keys_item: dict[str, Any]
            if isinstance(keys_item_data, JWKSKeysItemType0):
                keys_item = keys_item_data.to_dict()
            else:
                keys_item = keys_item_data.to_dict()

            keys.append(keys_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "keys": keys,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.jwks_keys_item_type_0 import JWKSKeysItemType0
        from ..models.jwks_keys_item_type_1 import JWKSKeysItemType1

        d = dict(src_dict)
        keys = []
        _keys = d.pop("keys")
        for keys_item_data in _keys:

            def _parse_keys_item(data: object) -> JWKSKeysItemType0 | JWKSKeysItemType1:
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    keys_item_type_0 = JWKSKeysItemType0.from_dict(data)

                    return keys_item_type_0
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                if not isinstance(data, dict):
                    raise TypeError()
                keys_item_type_1 = JWKSKeysItemType1.from_dict(data)

                return keys_item_type_1

            keys_item = _parse_keys_item(keys_item_data)

            keys.append(keys_item)

        jwks = cls(
            keys=keys,
        )

        return jwks
