@streaming @design
Feature: A task streams its run: the task, then its updates, until it ends
  A2A §3.1.2, §3.1.6, §3.5.2: a stream starts with the Task, then its updates in order; every stream of a task
  gets the same events. Design README: a send stream closes when the task ends or needs input, a subscription
  follows the task through input-required until it ends. Design, "Run and map": text deltas append to the
  response artifact, a tool start is a working status "using <tool>", a sent file is a new artifact.

  Background:
    Given a workspace of "owner-1" with the caller "travel-bot"

  # --- SendStreamingMessage ---

  @v0_3
  Scenario: A streamed task goes submitted, working, artifacts, completed
    When the caller streams "Book a table for two"
    Then the stream starts with the task submitted
    And the stream ends with the task completed
    And the stream's events match the snapshot

  @Stream_TextDeltas_AreArtifactAppends @v0_3
  Scenario: Text deltas are appends to the response artifact
    When the caller streams "Book a table for two at eight"
    Then the response artifact streams 1 message
    And each streamed message starts afresh, appends the rest and ends with a last chunk
    And the streamed message says "Book a table for two at eight" in 2 or more chunks

  @Stream_TextDeltas_AreArtifactAppends @v0_3
  Scenario: Each assistant message starts the response artifact afresh
    When the caller streams "think"
    Then the response artifact streams 3 messages
    And each streamed message starts afresh, appends the rest and ends with a last chunk
    And the stream ends with the task completed

  @Stream_ToolStart_IsWorkingStatus @v0_3
  Scenario Outline: A tool call is a working status naming only the tool
    When the caller streams "<command>"
    Then the working status updates say <statuses>
    And the stream ends with the task completed

    Examples:
      | command                | statuses                               |
      | think                  | "using list_files", "using list_files" |
      | notify: the plan is ok | "using notify_owner"                   |
      | file notes.txt         | "using write_file", "using send"       |

  @Stream_SendTool_ProducesArtifact @v0_3
  Scenario: A file the agent sends becomes a new artifact
    When the caller streams "file notes.txt"
    Then the stream carries a new artifact with the file "notes.txt" of type "text/plain"
    And the artifact's bytes are those of the workspace file "notes.txt"
    And the stream ends with the task completed
    When the caller gets the task
    Then the task keeps the streamed file artifact

  @RequestInput_SetsInputRequired_ContinuationResumesTask @v0_3
  Scenario: The stream closes when the task needs input
    When the caller streams "ask: what is your name?"
    Then the stream ends with the task input-required
    And the last status update says "what is your name?"
    When the caller streams the answer "Ada"
    Then the stream continues the same task
    And the stream starts with the task input-required
    And the stream ends with the task completed

  @Send_ProviderError_TaskFailed @v0_3
  Scenario: A streamed run that fails ends the stream failed
    When the caller streams "fail: out of coffee"
    Then the stream ends with the task failed
    And the last status update says "out of coffee"

  @v0_3
  Scenario: Only the last status update of a stream is final
    When the caller streams "think"
    Then only the last status update is marked final

  # --- SubscribeToTask ---

  @Subscribe_LiveTask_GetsEvents @v0_3
  Scenario: A subscriber gets the live task first, then its remaining events
    When the caller sends "sleep 2" without waiting
    And the caller subscribes to the task
    Then the stream starts with the task working
    And the streamed response ends with " Done sleeping."
    And the subscriber rebuilds the whole answer "Sleeping for 2 seconds. Done sleeping."
    And the stream ends with the task completed

  @v0_3
  Scenario: Two subscribers of one task get the same events in the same order
    When the caller sends "sleep 1" without waiting
    And two subscribers follow the task at once
    Then both streams start with the task working and end with the task completed
    And both streams carry the same events in the same order

  @v0_3
  Scenario: Subscribers of a task waiting for input follow it to its end
    When the caller sends "ask: what is your name?"
    And two subscribers follow the task at once
    And the caller answers "Ada"
    Then both streams start with the task input-required and end with the task completed
    And both streams carry the same events in the same order
    And the subscribers' events match the snapshot

  @v0_3
  Scenario: A subscription goes on through input-required to the end
    Given the workspace's script asks "what is your name?" after a pause
    When the caller sends "slow question" without waiting
    And two subscribers follow the task at once
    And the subscribers see the task input-required
    And the caller answers "Ada"
    Then both streams start with the task working and end with the task completed
    And both streams carry the same events in the same order
    And only the last status update is marked final

  @v0_3
  Scenario: A subscriber of a task waiting for input sees it canceled
    When the caller sends "ask: what is your name?"
    And two subscribers follow the task at once
    And the caller cancels the task
    Then both streams start with the task input-required and end with the task canceled

  # design: a subscription that waits for an answer nobody gives ends with the session idle timeout
  @v0_3
  Scenario: A subscription nobody answers ends when the session goes idle
    Given the server's session idle timeout is 1 second
    When the caller sends "ask: what is your name?"
    And the caller subscribes to the task
    Then the stream holds only the task input-required

  # --- a client that stops reading ---

  # our decision, like a message broker's with a slow consumer: a stream holds at most A2A__MaxUnsentStreamBytes
  # for its client, and a client that takes nothing for A2A__StreamWriteTimeout is dropped; the run goes on
  @v0_3 @server
  Scenario: A stalled subscriber is dropped while the others get every event
    Given the server drops a stream whose client takes nothing for 1 second
    And the workspace's script answers "long answer" with 8 MB of text after a pause
    When the caller sends "long answer" without waiting
    And a subscriber follows the task and stops reading after its first event
    And two subscribers follow the task at once
    Then the server drops the subscriber that stopped reading within 10 seconds
    And both streams start with the task working and end with the task completed
    And each subscriber rebuilds the whole long answer
    And the task's response artifact holds the whole long answer

  # --- refusals before the first event ---

  @Subscribe_TerminalTask_Unsupported @v0_3
  Scenario: Subscribing to a finished task is refused
    When the caller sends "hello"
    And the caller subscribes to the task
    Then the call fails with UnsupportedOperation
    And the refusal comes as a plain answer (0.3 over JSON-RPC: a stream of that one error)

  @v0_3
  Scenario: Subscribing to an unknown task is refused before any stream
    When the caller subscribes to the task "00000000-0000-4000-8000-000000000000"
    Then the call fails with TaskNotFound
    And the refusal comes as a plain answer (0.3 over JSON-RPC: a stream of that one error)

  @v0_3
  Scenario: Streaming to a finished task is refused before any stream
    When the caller sends "hello"
    And the caller streams the answer "once more"
    Then the call fails with UnsupportedOperation
    And the refusal comes as a plain answer (0.3 over JSON-RPC: a stream of that one error)

  @v0_3
  Scenario: Streaming into a busy context is refused before any stream
    When the caller sends "sleep 2" without waiting
    And the caller streams "hello" in the same context
    Then the call fails with UnsupportedOperation
    And the refusal comes as a plain answer (0.3 over JSON-RPC: a stream of that one error)

  @v0_3
  Scenario: Streaming a message without parts is refused before any stream
    When the caller streams the message {"messageId": "m-1", "role": "ROLE_USER", "parts": []}
    Then the call fails with InvalidParams
    And the refusal comes as a plain answer (0.3 over JSON-RPC: a stream of that one error)
