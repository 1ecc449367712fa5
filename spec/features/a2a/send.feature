@tasks
Feature: SendMessage answers with a task or a message, in a context
  A2A §3.1.1, §3.2.2, §3.4: a message gets a Task or a Message; a blocking send waits for a terminal or
  interrupted state, a returnImmediately one answers at once; task ids are the server's, context ids go on.
  The agent is asked for a behaviour only by the TCK's messageId prefixes (tck-complete-task, tck-input-required...).

  Background:
    Given the caller holds a key the agent accepts

  @must @spec-3.1.1 @CORE-SEND-001 @v0_3
  Scenario Outline: A message is answered with a task or with a message
    When the caller sends a "<prefix>" message
    Then the answer is a <answer>

    Examples:
      | prefix               | answer  |
      | tck-complete-task    | task    |
      | tck-message-response | message |

  @must @spec-3.1.1 @CORE-SEND-002 @v0_3
  Scenario Outline: A message to a task in a terminal state is refused
    Given the caller sent a "<prefix>" message
    And the task is <state>
    When the caller answers the task with a "tck-complete-task" message
    Then the call fails with UnsupportedOperation

    Examples:
      | prefix            | state     |
      | tck-complete-task | completed |
      | tck-reject-task   | rejected  |

  @must @spec-3.1.1 @CORE-SEND-002 @v0_3
  Scenario: A message to a canceled task is refused
    Given the caller sent a "tck-input-required" message
    And the caller canceled the task
    When the caller answers the task with a "tck-complete-task" message
    Then the call fails with UnsupportedOperation

  @must @spec-3.1.1 @CORE-SEND-003
  Scenario: A part of a media type the agent does not take is refused
    Given the agent's card takes no media type "application/x-unsupported-tck-type"
    When the caller sends a "tck-complete-task" message with a file part of type "application/x-unsupported-tck-type"
    Then the call fails with ContentTypeNotSupported

  @must @spec-3.2.2 @CORE-EXECUTION-MODE-001 @v0_3
  Scenario Outline: A send waits until the task ends or needs input
    When the caller sends a "<prefix>" message
    Then the task is <state>

    Examples:
      | prefix             | state          |
      | tck-complete-task  | completed      |
      | tck-reject-task    | rejected       |
      | tck-input-required | input-required |
      | tck-task-failure   | failed         |

  @must @spec-3.2.2 @CORE-EXECUTION-MODE-001 @v0_3
  Scenario: A send that waits answers with the task's artifacts
    When the caller sends a "tck-artifact-text" message
    Then the task is completed
    And the task has an artifact with the text "Generated text content"

  # not in 0.3: its blocking false promises nothing about when the answer comes (0.3 MessageSendConfiguration)
  @must @spec-3.2.2 @CORE-EXECUTION-MODE-002
  Scenario: A send that does not wait answers while the task still runs
    When the caller sends a "tck-complete-task" message without waiting
    Then the answer is a task not yet in a terminal state

  @must @spec-3.4.2 @CORE-MULTI-003 @v0_3
  Scenario: Each new task gets an id of its own
    When the caller sends a "tck-complete-task" message
    And the caller sends a "tck-complete-task" message
    Then the two tasks have different ids

  @must @spec-3.4.2 @CORE-MULTI-004 @v0_3
  Scenario: A message naming a task that does not exist is refused
    When the caller sends a "tck-complete-task" message to the task "tck-no-such-task"
    Then the call fails with TaskNotFound

  @may @spec-3.4.1 @CORE-MULTI-001 @v0_3
  Scenario: A message without a context gets one from the agent
    When the caller sends a "tck-complete-task" message
    Then the answer names a context

  @must @spec-3.4.1 @CORE-MULTI-001a @v0_3
  Scenario Outline: The context the agent gives is in its answer
    When the caller sends a "<prefix>" message
    Then the context of the task is the one the answer named

    Examples:
      | prefix             |
      | tck-complete-task  |
      | tck-input-required |

  @may @spec-3.4.1 @CORE-MULTI-002 @v0_3
  Scenario: A context chosen by the caller is kept
    When the caller sends a "tck-complete-task" message in a context of its own
    Then the answer names the caller's context

  @must @spec-3.4.1 @CORE-MULTI-002a @v0_3
  Scenario Outline: A caller's context is kept or refused, never replaced
    When the caller sends a "tck-complete-task" message in the context "<context>"
    Then the answer names that context, or the call is refused

    Examples:
      | context                        |
      | tck-client-context             |
      | a context, with spaces & ünïcode |

  @must @spec-3.4.3 @CORE-MULTI-005 @v0_3
  Scenario: A message naming only its task goes on in the task's context
    Given the caller sent a "tck-input-required" message
    When the caller answers the task with a "tck-complete-task" message naming only the task
    Then the answer continues the same task
    And the answer names the context of the task

  @must @spec-3.4.3 @CORE-MULTI-006 @v0_3
  Scenario: A message whose context is not its task's is refused
    Given the caller sent a "tck-input-required" message
    When the caller answers the task with a "tck-complete-task" message in another context
    Then the call is refused
    And the error names the field "message.contextId" because it does not match the context

  # ACTS DM-FMT-003, the half A2A agrees with: a2a.proto Message, "task_id only if a task was created"
  @should @spec-4.1.4 @SPEC-MSG-001 @v0_3
  Scenario: A message answer names no task
    When the caller sends a "tck-message-response" message
    Then the answer is a message that names no task
