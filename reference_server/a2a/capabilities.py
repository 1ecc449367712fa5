"""The optional capabilities the agent's card declares (A2A §3.3.4), each switched by a setting, and the refusal an
operation gets when the capability it needs is off: UnsupportedOperationError for a stream or a subscription without
streaming and for the extended card without it, PushNotificationNotSupportedError for anything about push
notifications without them. The card and the service ask here, so the two can never disagree."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reference_server.model.errors import PushNotificationNotSupported, UnsupportedOperation
from reference_server.settings import Settings


@dataclass(frozen=True)
class Capabilities:
    streaming: bool = True
    push_notifications: bool = True
    extended_agent_card: bool = True

    @classmethod
    def of(cls, settings: Settings) -> Capabilities:
        return cls(settings.capabilities_streaming, settings.capabilities_push_notifications,
                   settings.capabilities_extended_agent_card)

    def card(self) -> dict[str, Any]:
        """The card's `capabilities` object (a2a.proto AgentCapabilities)."""
        return {"streaming": self.streaming, "pushNotifications": self.push_notifications,
                "extendedAgentCard": self.extended_agent_card}

    def require_streaming(self, operation: str) -> None:
        """A2A §3.3.4: without the streaming capability, SendStreamingMessage and SubscribeToTask are refused."""
        if not self.streaming:
            raise UnsupportedOperation(
                f"{operation} needs streaming, and this agent's card declares capabilities.streaming false "
                "(A2A__Capabilities__Streaming): send the message with SendMessage and read the task with GetTask",
                metadata={"capability": "streaming"})

    def require_push(self, what: str) -> None:
        """A2A §3.3.4: without the pushNotifications capability, the push config operations are refused."""
        if not self.push_notifications:
            raise PushNotificationNotSupported(
                f"{what} needs push notifications, and this agent's card declares capabilities.pushNotifications "
                "false (A2A__Capabilities__PushNotifications): follow the task with GetTask instead",
                metadata={"capability": "pushNotifications"})

    def require_extended_card(self) -> None:
        """A2A §3.3.4: without the extendedAgentCard capability, GetExtendedAgentCard is refused."""
        if not self.extended_agent_card:
            raise UnsupportedOperation(
                "GetExtendedAgentCard needs an extended card, and this agent's card declares "
                "capabilities.extendedAgentCard false (A2A__Capabilities__ExtendedAgentCard): the public card is "
                "all there is", metadata={"capability": "extendedAgentCard"})
