@cards @design
Feature: Each optional capability can be switched off, and the card says so
  A2A__Capabilities__Streaming, __PushNotifications and __ExtendedAgentCard (true by default) switch one off, so a
  client developer sees what the client does without it: every card says so, and what it gates is refused as A2A
  §3.3.4 says, on both bindings and in 0.3 (UnsupportedOperationError; PushNotificationNotSupportedError for push).

  Background:
    Given a workspace of "owner-1" with the caller "caller-1"

  @no_binding
  Scenario Outline: A capability switched off is false on every card shape
    Given the server runs with the hybrid card and <capability> switched off
    When anyone fetches the public agent card
    Then the card's capabilities say <field> is false
    And the card's 0.3 fields say <field 0.3> is false

    Examples:
      | capability         | field             | field 0.3                         |
      | streaming          | streaming         | capabilities.streaming            |
      | push notifications | pushNotifications | capabilities.pushNotifications    |
      | the extended card  | extendedAgentCard | supportsAuthenticatedExtendedCard |

  @v0_3
  Scenario Outline: Without streaming, a stream and a subscription are refused
    Given the server runs with streaming switched off
    And the caller has a task waiting for input
    When the caller calls <operation> on the task
    Then the call fails with UnsupportedOperation
    And the error message says "capabilities.streaming false"

    Examples:
      | operation            |
      | SendStreamingMessage |
      | SubscribeToTask      |

  @v0_3
  Scenario Outline: Without push notifications, every push config is refused
    Given the server runs with push notifications switched off
    And the caller has a task waiting for input
    When the caller calls <operation> on the task
    Then the call fails with PushNotificationNotSupported
    And the error message says "capabilities.pushNotifications false"

    Examples:
      | operation                        |
      | CreateTaskPushNotificationConfig |
      | GetTaskPushNotificationConfig    |
      | ListTaskPushNotificationConfigs  |
      | DeleteTaskPushNotificationConfig |

  @v0_3
  Scenario: Without push notifications, a message with a push config is refused
    Given the server runs with push notifications switched off
    When the caller sends "hello" with a push config for the URL "https://hooks.example.com/notify"
    Then the call fails with PushNotificationNotSupported

  @v0_3
  Scenario: Without the extended card capability, the extended card is refused
    Given the server runs with the extended card switched off
    When the caller fetches the extended agent card
    Then the call fails with UnsupportedOperation
    And the error message says "capabilities.extendedAgentCard false"

  Scenario: Without streaming, a message is still answered
    Given the server runs with streaming switched off
    When the caller sends "hello"
    Then the task is completed
