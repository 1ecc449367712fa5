@streaming
Feature: SubscribeToTask follows a task that has not ended
  A2A §3.1.6, §3.5.2: a subscription starts with the Task as it is, follows it, and ends when the task reaches a
  terminal state; every open stream of a task gets the same events in the same order, and closing one leaves the
  others going. A task in a terminal state is UnsupportedOperationError, an unknown one TaskNotFoundError.

  Background:
    Given the caller holds a key the agent accepts
    And the agent's card declares streaming

  @must @spec-3.1.6 @STREAM-SUB-001 @v0_3
  Scenario: A subscription starts with the task as it is
    Given the caller sent a "tck-input-required" message
    When a subscriber follows the task
    Then the subscriber's first event is the task, input-required

  @must @spec-3.1.6 @STREAM-SUB-002 @v0_3
  Scenario: A subscription ends when the task reaches a terminal state
    Given the caller sent a "tck-input-required" message
    And a subscriber follows the task
    When the caller answers the task with a "tck-complete-task" message
    Then the subscriber's stream ends when the task is completed

  @must @spec-3.1.6 @STREAM-SUB-003 @v0_3
  Scenario Outline: Subscribing to a task in a terminal state is refused
    Given the caller sent a "<prefix>" message
    And the task is <state>
    When the caller subscribes to the task
    Then the call fails with UnsupportedOperation

    Examples:
      | prefix            | state     |
      | tck-complete-task | completed |
      | tck-reject-task   | rejected  |

  @must @spec-3.1.6 @STREAM-SUB-004 @v0_3
  Scenario: Subscribing to a task that does not exist is refused
    When the caller subscribes to the task "tck-no-such-task"
    Then the call fails with TaskNotFound

  @must @spec-3.5.2 @STREAM-ORDER-002 @v0_3
  Scenario: Every subscriber of a task gets its events
    Given the caller sent a "tck-input-required" message
    And two subscribers follow the task
    When the caller answers the task with a "tck-complete-task" message
    Then each subscriber's stream ends when the task is completed

  @must @spec-3.5.2 @STREAM-ORDER-003 @v0_3
  Scenario: Subscribers of a task get the same events in the same order
    Given the caller sent a "tck-input-required" message
    And two subscribers follow the task
    When the caller answers the task with a "tck-complete-task" message
    Then the subscribers got the same events in the same order

  @must @spec-3.5.2 @STREAM-ORDER-004 @v0_3
  Scenario: A subscriber that leaves does not end the other's stream
    Given the caller sent a "tck-input-required" message
    And two subscribers follow the task
    When the first subscriber leaves
    And the caller answers the task with a "tck-complete-task" message
    Then the second subscriber's stream ends when the task is completed
