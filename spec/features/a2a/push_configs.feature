@push
Feature: A task's push notification configs are created, read, listed and deleted
  A2A §3.1.7-3.1.10: a config stays until its task ends or it is deleted; Get answers with its URL and settings,
  and fails for a config that does not exist; List gives them all; Delete removes it for good, and twice is
  as good as once. Without the pushNotifications capability all four are PushNotificationNotSupportedError.

  Background:
    Given the caller holds a key the agent accepts

  @must @spec-3.1.7 @PUSH-CREATE-001 @v0_3
  Scenario: A push config is created for a task, with an id
    Given the agent's card declares push notifications
    And the caller sent a "tck-input-required" message
    When the caller creates a push config for the task with the token "tck-token-1"
    Then the push config has an id and the webhook's URL

  @must @spec-3.1.7 @PUSH-CREATE-002 @v0_3
  Scenario: A push config stays while its task goes on
    Given the agent's card declares push notifications
    And the caller sent a "tck-input-required" message
    And the caller created a push config for the task with the token "tck-token-2"
    When the caller answers the task with a "tck-input-required" message
    Then getting the push config gives the webhook and the token "tck-token-2"

  @must @spec-3.1.7 @PUSH-CREATE-002 @v0_3
  Scenario: A push config stays when another is created for the task
    Given the agent's card declares push notifications
    And the caller sent a "tck-input-required" message
    And the caller created a push config for the task with the token "tck-token-8"
    And the caller created another push config for the task with the token "tck-token-9"
    Then getting the first push config gives its own webhook and the token "tck-token-8"

  @must @spec-3.1.7 @SPEC-PUSH-001 @v0_3
  Scenario: A push config for a task that does not exist is refused
    Given the agent's card declares push notifications
    When the caller creates a push config for the task "tck-no-such-task"
    Then the call fails with TaskNotFound

  @must @spec-3.1.8 @PUSH-GET-001 @v0_3
  Scenario: Getting a push config gives its URL and its token
    Given the agent's card declares push notifications
    And the caller sent a "tck-input-required" message
    And the caller created a push config for the task with the token "tck-token-3"
    Then getting the push config gives the webhook and the token "tck-token-3"

  @must @spec-3.1.8 @PUSH-GET-002 @v0_3
  Scenario: Getting a push config that does not exist is refused
    Given the agent's card declares push notifications
    And the caller sent a "tck-input-required" message
    When the caller gets the push config "tck-no-such-config"
    Then the call fails with TaskNotFound

  @must @spec-3.1.9 @PUSH-LIST-001 @v0_3
  Scenario: Listing a task's push configs gives every one of them
    Given the agent's card declares push notifications
    And the caller sent a "tck-input-required" message
    And the caller created the push config "tck-config-4" for the task with the token "tck-token-4"
    And the caller created the push config "tck-config-5" for the task with the token "tck-token-5"
    Then listing the task's push configs gives both

  @must @spec-3.1.10 @PUSH-DEL-001 @v0_3
  Scenario: A deleted push config is gone
    Given the agent's card declares push notifications
    And the caller sent a "tck-input-required" message
    And the caller created a push config for the task with the token "tck-token-6"
    When the caller deletes the push config
    Then the call succeeds
    And listing the task's push configs gives none
    And getting the push config fails

  @must @spec-3.1.10 @PUSH-DEL-002 @v0_3
  Scenario: Deleting a push config twice is as good as once
    Given the agent's card declares push notifications
    And the caller sent a "tck-input-required" message
    And the caller created a push config for the task with the token "tck-token-7"
    When the caller deletes the push config
    And the caller deletes the push config
    Then the call succeeds
    And listing the task's push configs gives none

  @must @spec-3.3.4 @CORE-CAP-001
  Scenario Outline: Without the push capability, push configs are unsupported
    Given the agent's card does not declare push notifications
    And the caller sent a "tck-input-required" message
    When the caller calls <operation> on the task
    Then the call fails with PushNotificationNotSupported

    Examples:
      | operation                        |
      | CreateTaskPushNotificationConfig |
      | GetTaskPushNotificationConfig    |
      | ListTaskPushNotificationConfigs  |
      | DeleteTaskPushNotificationConfig |
