@hops @design
Feature: The recursion guard counts hops
  Design, "SendMessage" step 1: read metadata["volcanic.hops"] (missing = 0); above MaxHops (3) the task
  is created and immediately failed with "hop limit reached". Step 4: A2ASessionExtension emits
  a2a.inbound { hops, caller } on the session's event bus before the prompt.

  Background:
    Given a workspace of "owner-1" with the caller "travel-bot"

  @Hops_OverLimit_TaskFailed @v0_3
  Scenario: A message over the hop limit fails its task at once
    When the caller sends "hello" with 4 hops
    Then the task is failed
    And the task's status message says "hop limit reached"
    And the agent never saw the message

  @v0_3
  Scenario: A message at the hop limit is served
    When the caller sends "hello" with 3 hops
    Then the task is completed
    And the response artifact says "hello"

  Scenario: The hop count may come in the request's metadata
    When the caller sends "hello" with 4 hops in the request metadata
    Then the task is failed
    And the task's status message says "hop limit reached"

  Scenario: The hop limit follows the MaxHops setting
    Given the server allows 1 hops
    When the caller sends "hello" with 2 hops
    Then the task is failed
    And the task's status message says "hop limit reached"

  Scenario Outline: A hop count that is not a whole number is invalid
    When the caller sends "hello" with the hop count <value>
    Then the call fails with InvalidParams
    And the error names the field "message.metadata["volcanic.hops"]" because it must be a whole number >= 0

    Examples:
      | value |
      | "3"   |
      | 1.5   |
      | -1    |
      | true  |

  @Hops_EmittedOnEventBus @v0_3
  Scenario: The hop count reaches the session's event bus before the prompt
    When the caller sends "hello" with 2 hops
    Then the task is completed
    And the session's event bus carried a2a.inbound with 2 hops from "travel-bot"

  Scenario: A message without a hop count arrives with 0 hops
    When the caller sends "hello"
    Then the session's event bus carried a2a.inbound with 0 hops from "travel-bot"
