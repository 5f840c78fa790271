from enum import StrEnum


class CreatedApiKeyCreatedVia(StrEnum):
    API = "api"
    COMMAND_LINE = "command_line"
    UNKNOWN = "unknown"

    def __str__(self) -> str:
        return str(self.value)
