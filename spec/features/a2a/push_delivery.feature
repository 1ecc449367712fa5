@push
Feature: Push notifications reach the webhooks of a task
  A2A §4.3.3, §13.2: the agent POSTs StreamResponse bodies to every webhook configured for the task, at least
  once each, with the config's credentials in the Authorization header; it SHOULD retry a webhook that fails.
  The webhook listens on the loopback interface, so the server under test must accept a loopback webhook URL.

  Background:
    Given the caller holds a key the agent accepts
    And the agent's card declares push notifications
    And a webhook on this machine that records what it receives

  @must @spec-4.3.3 @PUSH-DELIVER-002 @v0_3
  Scenario: A webhook configured with a message hears of its task
    When the caller sends a "tck-complete-task" message with a push config for the webhook
    Then the webhook receives at least one notification for the task

  @must @spec-4.3.3 @PUSH-DELIVER-002 @v0_3
  Scenario: Each webhook configured for a task hears of it
    Given a second webhook on this machine that records what it receives
    And the caller sent a "tck-input-required" message
    And the caller created a push config of its own id for the task for each webhook
    When the caller answers the task with a "tck-complete-task" message
    Then each webhook receives at least one notification for the task

  @must @spec-4.3.3 @PUSH-DELIVER-003
  Scenario: A notification is a StreamResponse
    When the caller sends a "tck-complete-task" message with a push config for the webhook
    Then every notification the webhook receives is a StreamResponse of the task

  @must @spec-4.3.3 @spec-13.2 @PUSH-DELIVER-001
  Scenario: A notification carries the config's credentials
    When the caller sends a "tck-complete-task" message with a push config for the webhook with the scheme "Bearer" and the credentials "tck-secret"
    Then every notification the webhook receives carries the header Authorization "Bearer tck-secret"

  # a webhook call is the same whatever the binding of the task (§3.5.1), so one binding shows it
  @should @spec-13.2 @SPEC-PUSH-002 @jsonrpc
  Scenario: A webhook that fails is tried again
    Given the webhook fails once before it accepts
    When the caller sends a "tck-complete-task" message with a push config for the webhook
    Then the webhook is tried again after its failure
