@tasks
Feature: A task's history, as long as the caller asks
  A2A §3.2.4: historyLength unset means the server's default, 0 means no history (the history field SHOULD
  be left out), N means at most the N most recent messages, never more. §3.7: the agent decides which
  messages the history keeps.

  Background:
    Given the caller holds a key the agent accepts

  # on 0.3 HTTP+JSON a historyLength of 0 means unlimited (the 0.3 proto's int32 has no presence)
  @should @spec-3.2.4 @CORE-HIST-001 @v0_3 @not_v0_3_rest
  Scenario: Getting a task with a history length of 0 leaves the history out
    Given the caller sent a "tck-input-required" message
    When the caller gets the task with a history length of 0
    Then the task has no history

  # 0.3 HTTP+JSON cannot ask for this: the 0.3 proto's historyLength is an int32 without presence, "if 0, the
  # history will be unlimited"
  @should @spec-3.2.4 @CORE-HIST-003 @v0_3 @not_v0_3_rest
  Scenario: Sending with a history length of 0 leaves the history out
    When the caller sends a "tck-input-required" message with a history length of 0
    Then the task has no history

  @must @spec-3.2.4 @CORE-HIST-002 @v0_3
  Scenario: A history length of 1 gives at most one message
    Given the caller sent a "tck-input-required" message
    And the caller answered the task with a "tck-input-required" message
    When the caller gets the task with a history length of 1
    Then the task has at most 1 message in its history

  @may @spec-3.2.4 @CORE-HIST-004 @v0_3
  Scenario: The history keeps the caller's message
    Given the caller sent a "tck-input-required" message
    When the caller gets the task
    Then the history holds the caller's message

  @should @spec-3.2.4 @CORE-HIST-005 @v0_3
  Scenario: The history lists the messages in the order they came
    Given the caller sent a "tck-input-required" message
    And the caller answered the task with a "tck-input-required" message
    When the caller gets the task
    Then the caller's messages are in the history in the order they were sent

  @should @spec-3.2.4 @CORE-HIST-006 @v0_3
  Scenario: A message in the history is the message that was sent
    Given the caller sent a "tck-input-required" message
    When the caller gets the task
    Then the caller's message in the history is the one it sent
