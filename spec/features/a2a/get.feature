@tasks
Feature: GetTask gives a task as it is now
  A2A §3.1.3: GetTask returns the current state of a task, its status and artifacts, and optionally its
  history; a task that does not exist, or is not the caller's to see, is TaskNotFoundError.

  Background:
    Given the caller holds a key the agent accepts

  @must @spec-3.1.3 @CORE-GET-001 @v0_3
  Scenario: Getting a task gives its status and its artifacts
    Given the caller sent a "tck-artifact-text" message
    When the caller gets the task
    Then the task is completed
    And the task has an artifact with the text "Generated text content"

  @must @spec-3.1.3 @CORE-GET-001 @v0_3
  Scenario: Getting a task waiting for input gives it as it waits
    Given the caller sent a "tck-input-required" message
    When the caller gets the task
    Then the task is input-required

  @must @spec-3.1.3 @CORE-GET-002 @v0_3
  Scenario: Getting a task that does not exist is refused
    When the caller gets the task "tck-no-such-task"
    Then the call fails with TaskNotFound
