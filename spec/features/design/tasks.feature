@tasks @design
Feature: A message is a task: it runs, asks, fails, is canceled and continues
  Design, "Decisions": context = session, task = run. A run ends completed unless the agent calls
  request_input, which ends it input-required; the caller's next message with that taskId continues the
  same task. One message at a time per context. A2A §3.1.1, §3.1.5, §3.4.2: a message to a terminal task
  is UnsupportedOperation, an unknown taskId TaskNotFound; a terminal task cannot be canceled.

  Background:
    Given a workspace of "owner-1" with the caller "travel-bot"

  # --- runs and their ends ---

  @Send_Completes_ResponseArtifactHasFinalAnswer @v0_3
  Scenario: A message completes with the answer as the response artifact
    When the caller sends "Book a table for two"
    Then the task is completed
    And the response artifact says "Book a table for two"

  @Send_Completes_ResponseArtifactHasFinalAnswer @v0_3
  Scenario: Only the last assistant message is kept as the answer
    When the caller sends "think"
    Then the task is completed
    And the response artifact begins with "Done thinking. The workspace holds:"
    And no artifact of the task mentions "Let me"

  @Send_ProviderError_TaskFailed @v0_3
  Scenario: A provider error fails the task with its message
    When the caller sends "fail: out of coffee"
    Then the task is failed
    And the task's status message says "out of coffee"

  @v0_3
  Scenario: An unexpected crash fails the task with a generic message
    When the caller sends "crash"
    Then the task is failed
    And the task's status message says "The run failed unexpectedly."

  # --- input-required and continuation ---

  @RequestInput_SetsInputRequired_ContinuationResumesTask @v0_3
  Scenario: A question makes the task input-required and the answer resumes it
    When the caller sends "ask: what is your name?"
    Then the task is input-required
    And the task's status message says "what is your name?"
    And the task has 2 messages in its history
    When the caller answers "Ada"
    Then the answer continues the same task
    And the task is completed
    And the response artifact says "Ada"
    And the task has 3 messages in its history

  @v0_3
  Scenario: A message to a completed task is refused
    When the caller sends "hello"
    And the caller sends "hello again" to the task
    Then the call fails with UnsupportedOperation

  @v0_3
  Scenario: A message naming an unknown task is refused
    When the caller sends "hello" to the task "00000000-0000-4000-8000-000000000000"
    Then the call fails with TaskNotFound

  @v0_3
  Scenario: An answer in another context than its task's is refused
    When the caller sends "ask: what is your name?"
    And the caller answers "Ada" in the context "another-context"
    Then the call fails with InvalidParams
    And the error names the field "message.contextId" because it does not match the context

  # --- one message at a time per context ---

  @Send_ContextBusy_Rejected @v0_3
  Scenario: A message to a busy context is refused until its task ends
    When the caller sends "sleep 2" without waiting
    And the caller sends "hello" in the same context
    Then the call fails with UnsupportedOperation
    And the error message says "context busy, retry when the current task ends"
    When the caller cancels the task
    And the caller sends "hello" in the same context
    Then the task is completed

  # --- cancel ---

  @Cancel_AbortsRun @v0_3
  Scenario: Canceling a running task aborts its run at once
    When the caller sends "sleep 30" without waiting
    Then the task is working
    When the caller cancels the task
    Then the task is canceled
    And the cancel returned within 5 seconds
    When the caller gets the task
    Then the task is canceled
    And no artifact of the task mentions "Done sleeping"

  @v0_3
  Scenario: Canceling a completed task is refused
    When the caller sends "hello"
    And the caller cancels the task
    Then the call fails with TaskNotCancelable

  @v0_3
  Scenario: Canceling a task that waits for input cancels it
    When the caller sends "ask: what is your name?"
    And the caller cancels the task
    Then the task is canceled
    When the caller gets the task
    Then the task is canceled

  # --- tenancy ---

  @Tasks_OtherCallersTask_NotFound @v0_3
  Scenario Outline: Another caller of the workspace finds no such task
    Given the workspace also has the caller "other-bot"
    When the caller sends "ask: what is your name?"
    And "other-bot" <acts on> the task
    Then the call fails with TaskNotFound
    When the caller gets the task
    Then the task is input-required

    Examples:
      | acts on       |
      | gets          |
      | cancels       |
      | subscribes to |

  @Tasks_OtherCallersTask_NotFound @v0_3
  Scenario: Another caller of the workspace cannot answer the task
    Given the workspace also has the caller "other-bot"
    When the caller sends "ask: what is your name?"
    And "other-bot" answers "Mallory"
    Then the call fails with TaskNotFound
    When the caller gets the task
    Then the task is input-required

  # --- configuration and ids ---

  @v0_3
  Scenario: Without waiting the caller gets the working task at once
    When the caller sends "hello" without waiting
    Then the task is working
    And the task becomes completed

  # 0.3 HTTP+JSON cannot ask for this: the 0.3 proto's historyLength is an int32 without presence, "if 0, the
  # history will be unlimited" (docs/protocol.md, A23)
  @v0_3 @not_v0_3_rest
  Scenario: A history length of 0 leaves the history out
    When the caller sends "hello" with a history length of 0
    Then the task is completed
    And the task has no history
    When the caller gets the task with a history length of 0
    Then the task has no history

  @v0_3
  Scenario: A history length of 1 keeps only the latest message
    When the caller sends "ask: what is your name?" with a history length of 1
    Then the task has 1 message in its history
    And the latest message in the task's history says "what is your name?"
    When the caller gets the task with a history length of 1
    Then the task has 1 message in its history
    And the latest message in the task's history says "what is your name?"
    When the caller gets the task
    Then the task has 2 messages in its history

  @v0_3
  Scenario: A context id chosen by the caller is kept
    When the caller sends "hello" in the context "trip-2026_05"
    Then the task's context is "trip-2026_05"

  @v0_3
  Scenario: A message without a context id starts a new context
    When the caller sends "hello"
    Then the task's context is a new UUID
    When the caller sends "hello again"
    Then the task's context is a new UUID
