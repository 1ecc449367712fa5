@shapes @design
Feature: The scripted agent gives the behaviours the TCK and ACTS ask for by name
  Design (issue 25): a conformance suite names the behaviour it wants, the TCK at the start of the messageId, ACTS as
  the first word of the first text part ("tck-complete-task hello", acts-specification.md §11.2). The scripted agent
  follows both, and a messageId that names a behaviour wins over the text (docs/scripted-agent.md).

  Background:
    Given a workspace of "owner-1" with the caller "travel-bot"

  # --- the text convention (ACTS) beside the messageId convention (TCK) ---

  @v0_3
  Scenario Outline: The first word of the text asks for a behaviour
    When the caller sends "<command>"
    And the caller sends "<behaviour> hello" with a fresh message id
    Then the answer has the same shape as the one before

    Examples:
      | command          | behaviour                   |
      | message          | tck-message-response        |
      | message metadata | shape-message-metadata      |
      | complete         | tck-complete-task           |
      | artifact text    | tck-artifact-text           |
      | artifact file    | tck-artifact-file           |
      | artifact url     | tck-artifact-file-url       |
      | artifact data    | tck-artifact-data           |
      | artifact parts   | shape-artifact-parts        |
      | two artifacts    | shape-two-artifacts         |
      | artifact chunks  | tck-stream-artifact-chunked |
      | reject           | tck-reject-task             |
      | need auth        | tck-auth-required           |
      | need input       | tck-input-required          |
      | status metadata  | shape-status-metadata       |

  @v0_3
  Scenario: A messageId that names a behaviour wins over the text
    When the caller sends "reject"
    And the caller sends "tck-complete-task hello" with a message id starting "tck-reject-task"
    Then the answer has the same shape as the one before

  @v0_3
  Scenario Outline: A behaviour's name anywhere but as the first word is text
    When the caller sends "<text>"
    Then the task is completed
    And the response artifact says "<text>"

    Examples:
      | text                       |
      | tck-complete-tasks, please |
      | please tck-complete-task   |

  @v0_3
  Scenario Outline: A behaviour only ACTS names is asked for by messageId too
    When the caller sends "hello" with a message id starting "<behaviour>"
    Then the task is <state>

    Examples:
      | behaviour        | state          |
      | tck-multi-turn   | input-required |
      | tck-task-failure | failed         |
      | tck-stream-basic | completed      |

  # --- the streams ACTS names ---

  @v0_3
  Scenario: A basic stream is the task, working, one artifact, then completed
    When the caller streams "tck-stream-basic go"
    Then the stream starts with the task submitted
    And the stream's status updates are:
      | state     | message | metadata |
      | working   |         |          |
      | completed |         |          |
    And the stream's artifact updates are:
      | name | append | last chunk | parts                          |
      |      | no     | yes        | [{"text": "Streamed content"}] |
    And no state in the stream goes back to an earlier one

  # ACTS's STREAM-MULTI-001/002 subscribe to a tck-stream-basic task once its stream has begun: it works two seconds
  @v0_3
  Scenario: A basic stream's task works long enough to be subscribed to
    When the caller sends "tck-stream-basic go" without waiting
    Then the task is working
    When the caller subscribes to the task
    Then the stream starts with the task working
    And the stream ends with the task completed

  @v0_3
  Scenario: A chunked stream appends three chunks to one artifact
    When the caller streams "tck-stream-chunked go"
    Then the stream's artifact updates are:
      | name   | append | last chunk | parts                  |
      | chunks | no     | no         | [{"text": "chunk-1 "}] |
      | chunks | yes    | no         | [{"text": "chunk-2 "}] |
      | chunks | yes    | yes        | [{"text": "chunk-3"}]  |
    And the stream ends with the task completed
    When the caller gets the task
    Then the task's only artifact holds the parts [{"text": "chunk-1 "}, {"text": "chunk-2 "}, {"text": "chunk-3"}]

  # --- tck-multi-turn: input-required until an answer starts with "done" ---

  @v0_3
  Scenario: A multi-turn task asks again until an answer starts with done
    When the caller sends "tck-multi-turn plan a trip"
    Then the task is input-required
    And the task's status message says "Send more input, or 'done' to complete this multi-turn task"
    When the caller answers "to Lisbon"
    Then the answer continues the same task
    And the task is input-required
    When the caller answers "Done, thanks"
    Then the answer continues the same task
    And the task is completed
    And the task's status message says "Multi-turn task completed"
    And the task has 5 messages in its history

  @v0_3
  Scenario: A streamed multi-turn task ends each stream until it is done
    When the caller streams "tck-multi-turn plan a trip"
    Then the stream ends with the task input-required
    When the caller streams the answer "to Lisbon"
    Then the stream continues the same task
    And the stream ends with the task input-required
    When the caller streams the answer "done"
    Then the stream continues the same task
    And the stream ends with the task completed

  @v0_3
  Scenario: A multi-turn answer that names only the task goes on with it
    When the caller sends "tck-multi-turn start"
    And the caller answers "done" naming only the task
    Then the answer continues the same task
    And the task is completed

  @v0_3
  Scenario: Once a multi-turn task is done, the context's next message is new
    When the caller sends "tck-multi-turn start"
    And the caller answers "done"
    And the caller sends "hello" in the same context
    Then the task is completed
    And the response artifact says "hello"

  # --- tck-long-running: working for 3 seconds, then completed with an artifact ---

  @v0_3
  Scenario: A long-running task works a while, then completes with an artifact
    When the caller sends "tck-long-running start" without waiting
    Then the task is working
    When the caller gets the task
    Then the task is working
    And the task becomes completed
    And the task has an artifact with the text "Long-running work done"

  @v0_3
  Scenario: A subscriber follows a long-running task to its end
    When the caller sends "tck-long-running start" without waiting
    And the caller subscribes to the task
    Then the stream starts with the task working
    And the stream's artifact updates are:
      | name   | append | last chunk | parts                                |
      | result | no     | yes        | [{"text": "Long-running work done"}] |
    And the stream ends with the task completed

  # --- tck-cancel: working until canceled (failed after 300 seconds without a cancel) ---

  @v0_3
  Scenario: A tck-cancel task works until the caller cancels it
    When the caller sends "tck-cancel start" without waiting
    Then the task is working
    When the caller gets the task
    Then the task is working
    When the caller cancels the task
    Then the task is canceled
    And the cancel returned within 5 seconds

  @v0_3
  Scenario: A subscriber of a tck-cancel task sees it canceled
    When the caller sends "tck-cancel start" without waiting
    And a subscriber follows the task
    And the caller cancels the task
    Then the subscriber's stream ends when the task is canceled

  # --- tck-task-failure ---

  @v0_3
  Scenario: A tck-task-failure task fails and says why
    When the caller sends "tck-task-failure trigger error"
    Then the task is failed
    And the task's status message says "Failed on purpose: the message asked for tck-task-failure"

  @v0_3
  Scenario: A streamed tck-task-failure task ends its stream failed
    When the caller streams "tck-task-failure trigger error"
    Then the stream ends with the task failed
    And the last status update says "Failed on purpose: the message asked for tck-task-failure"
