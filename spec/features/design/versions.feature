@versions
Feature: A2A-Version negotiation
  A2A §3.6.2: the server MUST process a request with the semantics of the requested Major.Minor
  version, MUST answer an unsupported one with VersionNotSupportedError, and MUST read an empty or
  missing value as 0.3. A client MAY send the version as a query parameter instead (§3.6.1).

  Background:
    Given a workspace of "owner-1" with the caller "travel-bot"

  @portable
  Scenario Outline: Supported versions are accepted, whatever the patch number
    Given the caller sends A2A-Version "<version>"
    When the caller fetches the extended agent card
    Then the call succeeds

    Examples:
      | version |
      | 1.0     |
      | 1.0.3   |

  Scenario: The version can be sent as a query parameter
    Given the caller sends A2A-Version "1.0" as a query parameter only
    When the caller fetches the extended agent card
    Then the call succeeds

  @portable
  Scenario Outline: Unsupported versions are refused with a hint
    Given the caller sends A2A-Version "<version>"
    When the caller fetches the extended agent card
    Then the call fails with VersionNotSupported
    And the error message says "send the header A2A-Version: 1.0"

    Examples:
      | version |
      | 2.0     |
      | 1.1     |
      | 0.2     |
      | one     |

  @jsonrpc
  Scenario: A missing version means 0.3, so a 1.0 method is refused with a hint
    Given the caller sends no A2A-Version
    When the caller fetches the extended agent card
    Then the call fails with VersionNotSupported
    And the error message says "GetExtendedAgentCard is an A2A 1.0 method but the request is A2A 0.3"
    And the error message says "send the header A2A-Version: 1.0"

  @jsonrpc
  Scenario: A missing version means 0.3, and 0.3 methods work without it
    Given the caller sends no A2A-Version
    When the caller calls the 0.3 method "agent/getAuthenticatedExtendedCard"
    Then the call succeeds

  @jsonrpc
  Scenario: A 0.3 method sent as 1.0 is refused with a hint
    When the caller calls the 0.3 method "agent/getAuthenticatedExtendedCard" as A2A 1.0
    Then the call fails with VersionNotSupported
    And the error message says "send the header A2A-Version: 0.3"

  @rest
  Scenario: On HTTP+JSON a missing version means 0.3, and 0.3 messages work
    Given the caller sends no A2A-Version
    When the caller sends "hello" in the 0.3 proto shape
    Then the task is completed
    And the answer is in the 0.3 proto shape

  @rest
  Scenario: On HTTP+JSON a 1.0 message without a version gets a hint
    Given the caller sends no A2A-Version
    When the caller sends "hello"
    Then the call fails with InvalidParams
    And the error names the field "message.content" because it is required: `parts` is the A2A 1.0 name
    And the error message says "send the header A2A-Version: 1.0"

  @rest
  Scenario: On HTTP+JSON a 1.0-only operation without a version gets a hint
    Given the caller sends no A2A-Version
    When the caller fetches the extended agent card
    Then the call fails with VersionNotSupported
    And the error message says "is an A2A 1.0 route (GetExtendedAgentCard) but the request is A2A 0.3"
    And the error message says "send the header A2A-Version: 1.0"
