@bindings
Feature: Every binding is the same agent
  A2A §5.1: when an agent serves several bindings, each offers the same operations and capabilities and gives
  semantically equivalent results for the same requests (errors and authentication: errors.feature, auth.feature).

  Background:
    Given the caller holds a key the agent accepts

  @must @spec-5.1 @BIND-EQUIV-001
  Scenario Outline: Every operation is served on every binding
    Given the caller sent a "tck-input-required" message
    When the caller calls <operation> on the task
    Then the operation is served

    Examples:
      | operation                        |
      | SendMessage                      |
      | SendStreamingMessage             |
      | GetTask                          |
      | ListTasks                        |
      | CancelTask                       |
      | SubscribeToTask                  |
      | CreateTaskPushNotificationConfig |
      | GetTaskPushNotificationConfig    |
      | ListTaskPushNotificationConfigs  |
      | DeleteTaskPushNotificationConfig |
      | GetExtendedAgentCard             |

  @must @spec-5.1 @BIND-EQUIV-002
  Scenario: A task made on one binding reads the same on the other
    Given the agent's card offers both bindings in A2A 1.0
    When the caller sends a "tck-artifact-data" message
    And the caller gets the task on the other binding
    Then the task read on the other binding is the task the answer gave
