@tasks
Feature: CancelTask cancels a task that has not ended
  A2A §3.1.5: CancelTask returns the updated task; a task that is not cancelable (it has already reached a
  terminal state) is TaskNotCancelableError, and an unknown one TaskNotFoundError.

  Background:
    Given the caller holds a key the agent accepts

  @must @spec-3.1.5 @CORE-CANCEL-001 @v0_3
  Scenario: Canceling a task waiting for input answers with the task canceled
    Given the caller sent a "tck-input-required" message
    When the caller cancels the task
    Then the task is canceled
    When the caller gets the task
    Then the task is canceled

  @must @spec-3.1.5 @CORE-CANCEL-002 @v0_3
  Scenario Outline: Canceling a task in a terminal state is refused
    Given the caller sent a "<prefix>" message
    And the task is <state>
    When the caller cancels the task
    Then the call fails with TaskNotCancelable

    Examples:
      | prefix            | state     |
      | tck-complete-task | completed |
      | tck-reject-task   | rejected  |

  @must @spec-3.1.5 @CORE-CANCEL-003 @v0_3
  Scenario: Canceling a task that does not exist is refused
    When the caller cancels the task "tck-no-such-task"
    Then the call fails with TaskNotFound
