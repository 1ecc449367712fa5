"""Every error the server reports, as a tree of exceptions; how each appears on the wire is the bindings' table
(bindings/errors.py, A2A v1.0.1 §5.4)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FieldViolation:
    """One entry of google.rpc.BadRequest.fieldViolations: which field, and why."""

    field: str
    description: str


class A2AError(Exception):
    """Base of every error that reaches a client as an A2A error."""

    default_message = "Internal error"

    def __init__(self, message: str | None = None, *, metadata: dict[str, str] | None = None) -> None:
        self.message = message or self.default_message
        self.metadata = metadata or {}
        super().__init__(self.message)


class ParseError(A2AError):
    """The request body is not valid JSON."""

    default_message = "Invalid JSON payload"


class InvalidRequest(A2AError):
    """The JSON-RPC envelope is not a valid request object (or is a batch)."""

    default_message = "Request payload validation error"


class MethodNotFound(A2AError):
    """No such JSON-RPC method, or no such REST route."""

    default_message = "Method not found"


class InvalidParams(A2AError):
    """The request's parameters break the A2A schema; fieldViolations say where."""

    default_message = "Invalid parameters"

    def __init__(
        self,
        message: str | None = None,
        *,
        violations: list[FieldViolation] | None = None,
        metadata: dict[str, str] | None = None,
    ) -> None:
        self.violations = violations or []
        if message is None and self.violations:
            first = self.violations[0]
            message = f"Invalid parameters: {first.field}: {first.description}"
            if len(self.violations) > 1:
                message += f" (and {len(self.violations) - 1} more)"
        super().__init__(message, metadata=metadata)


class InternalError(A2AError):
    """The server failed; the detail is logged, never sent."""

    default_message = "Internal error"


class TaskNotFound(A2AError):
    """The task does not exist or is not the caller's (A2A §3.3.2: indistinguishable)."""

    default_message = "Task not found"


class TaskNotCancelable(A2AError):
    """The task is in a terminal state and cannot be canceled (A2A §3.1.5)."""

    default_message = "Task cannot be canceled"


class PushNotificationNotSupported(A2AError):
    """Push notifications are not supported by this agent."""

    default_message = "Push notifications are not supported"


class UnsupportedOperation(A2AError):
    """The operation is valid A2A but this server or this task does not allow it now."""

    default_message = "This operation is not supported"


class ContentTypeNotSupported(A2AError):
    """A part's media type is not one the agent accepts."""

    default_message = "Incompatible content types"


class InvalidAgentResponse(A2AError):
    """The agent produced a response that is not valid A2A."""

    default_message = "Invalid agent response"


class ExtendedAgentCardNotConfigured(A2AError):
    """The agent declares an extended card but has none configured."""

    default_message = "Extended agent card is not configured"


class ExtensionSupportRequired(A2AError):
    """A required extension was not declared by the client."""

    default_message = "Extension support is required"


class VersionNotSupported(A2AError):
    """The requested A2A-Version is not served by this interface."""

    default_message = "A2A version not supported"


class PayloadTooLarge(A2AError):
    """The request body is larger than the configured limit; it was not parsed."""

    default_message = "Request body too large"


class BodyTimeout(A2AError):
    """The request body did not arrive within the configured time; it was not parsed."""

    default_message = "Request body too slow"


class TooManyRequests(A2AError):
    """Refused before anything was done, on purpose (a fault a message asked for): retry after Retry-After."""

    default_message = "Too many requests"


class Unavailable(A2AError):
    """Unavailable before anything was done, on purpose (a fault a message asked for): retry after Retry-After."""

    default_message = "Service unavailable"


class Unauthenticated(A2AError):
    """No key, an unknown key, or a key that matches more than one caller."""

    default_message = "Authentication required"


class WatchNotFound(A2AError):
    """A push for a watch that does not exist or whose token does not match (indistinguishable)."""

    default_message = "Watch not found"
