@versions @server
Feature: A2A-Version hints: which header to send
  Design README: a missing A2A-Version means 0.3, strictly as A2A §3.6.2 says, and a request that speaks the other
  version than its header gets an error whose message names the header to send. What A2A itself requires of the
  version header is in spec/features/a2a/versions.feature.

  Background:
    Given a workspace of "owner-1" with the caller "travel-bot"

  @jsonrpc
  Scenario: A 0.3 method sent as 1.0 is refused with a hint
    When the caller calls the 0.3 method "agent/getAuthenticatedExtendedCard" as A2A 1.0
    Then the call fails with VersionNotSupported
    And the error message says "send the header A2A-Version: 0.3"

  @rest @design
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
