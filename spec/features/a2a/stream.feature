@streaming
Feature: SendStreamingMessage streams the task, or the one message, until the end
  A2A §3.1.2, §3.5.2: a stream is either exactly one Message, then closed, or the Task first, then its status
  and artifact updates in the order they happened, closed when the task reaches a terminal state.
  Without the streaming capability both streaming operations are UnsupportedOperationError (§3.3.4).

  Background:
    Given the caller holds a key the agent accepts

  @must @spec-3.1.2 @CORE-STREAM-001 @v0_3
  Scenario: A streamed message opens a stream of events
    Given the agent's card declares streaming
    When the caller streams a "tck-stream-001" message
    Then the stream carries at least one event

  @must @spec-3.1.2 @CORE-STREAM-002 @v0_3
  Scenario: A message answer is a stream of that one message
    Given the agent's card declares streaming
    When the caller streams a "tck-message-response" message
    Then the stream is that one message

  @must @spec-3.1.2 @CORE-STREAM-003 @v0_3
  Scenario Outline: A task stream starts with the task and ends with the task's end
    Given the agent's card declares streaming
    When the caller streams a "<prefix>" message
    Then the stream starts with the task
    And the stream ends when the task is <state>

    Examples:
      | prefix            | state     |
      | tck-stream-003    | completed |
      | tck-complete-task | completed |
      | tck-reject-task   | rejected  |

  @must @spec-3.5.2 @STREAM-ORDER-001 @v0_3
  Scenario: Events arrive in the order they happened
    Given the agent's card declares streaming
    When the caller streams a "tck-stream-ordering-001" message
    Then no state in the stream goes back to an earlier one

  @must @spec-3.3.4 @CORE-CAP-002
  Scenario Outline: Without the streaming capability, streams are unsupported
    Given the agent's card does not declare streaming
    And the caller sent a "tck-input-required" message
    When the caller calls <operation> on the task
    Then the call fails with UnsupportedOperation

    Examples:
      | operation            |
      | SendStreamingMessage |
      | SubscribeToTask      |

  # ACTS STREAM-SSE-003: a2a.proto TaskArtifactUpdateEvent, append and last_chunk
  @should @spec-4.2.2 @SPEC-STREAM-001 @v0_3
  Scenario: An artifact sent in chunks is appended to and marks its last chunk
    Given the agent's card declares streaming
    When the caller streams a "tck-stream-artifact-chunked" message
    Then the artifact's later chunks are appended to it and its last is marked last

  # ACTS STREAM-RESUB-001: A2A §3.5.2, the task lifecycle is independent of any one stream
  @should @spec-3.5.2 @SPEC-STREAM-002
  Scenario: A task goes on when its stream closes and can be followed again
    Given the agent's card declares streaming
    When the caller streams a "tck-long-running" message and leaves after the first event
    And a subscriber follows the task
    Then the subscriber's stream ends when the task is completed
