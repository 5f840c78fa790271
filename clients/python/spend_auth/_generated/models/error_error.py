from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.error_error_code import ErrorErrorCode
from ..types import UNSET, Unset

T = TypeVar("T", bound="ErrorError")


@_attrs_define
class ErrorError:
    """
    Attributes:
        code (ErrorErrorCode):
        message (str): For people: what went wrong and, where it helps, what to do
        param (str | Unset): The offending parameter, dotted for nested fields
        request_id (str | Unset): Equal to the X-Request-Id response header
    """

    code: ErrorErrorCode
    message: str
    param: str | Unset = UNSET
    request_id: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        code = self.code.value

        message = self.message

        param = self.param

        request_id = self.request_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "code": code,
                "message": message,
            }
        )
        if param is not UNSET:
            field_dict["param"] = param
        if request_id is not UNSET:
            field_dict["request_id"] = request_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        code = ErrorErrorCode(d.pop("code"))

        message = d.pop("message")

        param = d.pop("param", UNSET)

        request_id = d.pop("request_id", UNSET)

        error_error = cls(
            code=code,
            message=message,
            param=param,
            request_id=request_id,
        )

        return error_error
