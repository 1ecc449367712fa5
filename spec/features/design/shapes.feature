@shapes @design
Feature: The scripted agent gives every shape of answer a client must handle
  A2A §3.1.1: an agent answers a message with a Task or with a Message; a task's artifacts hold text, data and file
  parts, by bytes or by URL, and a task may be rejected or wait for authentication (§7.6.1). Issue 10: one plain
  command, or one messageId prefix, per shape, so a client can be tested against each (docs/scripted-agent.md).

  Background:
    Given a workspace of "owner-1" with the caller "travel-bot"

  # --- a message, not a task ---

  @v0_3
  Scenario: A message can be answered with a message and no task
    When the caller sends "message"
    Then the answer is a message saying "Direct message response"
    And the message names the context but no task
    And no task was created

  @v0_3
  Scenario: A streamed message answer is the one message of the stream
    When the caller streams "message"
    Then the stream is one message saying "Direct message response"
    And no task was created

  @v0_3
  Scenario: Without waiting, a message answer is still the message
    When the caller sends "message" without waiting
    Then the answer is a message saying "Direct message response"
    And no task was created

  Scenario: A message answer in the making is never listed as a task
    Given the workspace's script is:
      """
      {"rules": [{"match": "^slow$", "turns": [[{"pause": 2}, {"reply": "Done"}]]}]}
      """
    When the caller sends "slow" in the background
    And the agent is working on it
    And the caller lists its tasks
    Then the list holds no tasks
    When the caller gets the answer
    Then the answer is a message saying "Done"
    And no task was created

  @v0_3
  Scenario: A message answer carries its parts and metadata
    When the caller sends "message metadata"
    Then the answer is a message with the parts:
      """
      [{"text": "A message with metadata and a data part"}, {"data": {"kind": "example", "count": 2}}]
      """
    And the message has the metadata {"source": "scripted-agent", "shape": "message metadata"}

  @v0_3
  Scenario: A message answer to a waiting task completes it with the message
    When the caller sends "need input"
    And the caller answers "message"
    Then the answer continues the same task
    And the task is completed
    And the task's status message says "Direct message response"

  @v0_3
  Scenario: A message answer that fails before it is given is a failed task
    Given the workspace's script is:
      """
      {"rules": [{"match": "^later (?P<when>.+)$", "turns": [[{"pause": "{when}"}, {"reply": "Done"}]]}]}
      """
    When the caller sends "later soon"
    Then the task is failed
    And the task's status message mentions "pause 'soon' is not a number of seconds"
    When the caller streams "later soon"
    Then the stream is the task alone, failed

  # --- artifacts ---

  @v0_3
  Scenario Outline: An artifact holds the kind of part its command names
    When the caller sends "<command>"
    Then the task is completed
    And the task's only artifact holds the parts <parts>

    Examples:
      | command       | parts                                                                                          |
      | artifact text | [{"text": "Generated text content"}]                                                           |
      | artifact data | [{"data": {"key": "value", "count": 42}}]                                                      |
      | artifact file | [{"raw": "dGNr", "filename": "output.txt", "mediaType": "text/plain"}]                         |
      | artifact url  | [{"url": "https://example.com/output.txt", "filename": "output.txt", "mediaType": "text/plain"}] |

  @v0_3
  Scenario: One artifact mixes every kind of part, with a name and metadata
    When the caller sends "artifact parts"
    Then the task's only artifact is:
      """
      {
        "name": "report",
        "description": "A text, a data, a file and a file URL part",
        "parts": [
          {"text": "Every kind of part in one artifact"},
          {"data": {"rows": 2, "columns": ["name", "size"]}},
          {"raw": "dGNr", "filename": "output.txt", "mediaType": "text/plain"},
          {"url": "https://example.com/output.txt", "filename": "output.txt", "mediaType": "text/plain",
           "metadata": {"note": "not downloaded by the server"}}
        ],
        "metadata": {"version": 1}
      }
      """

  @v0_3
  Scenario: Two named artifacts arrive as two artifact updates
    When the caller streams "two artifacts"
    Then the stream's artifact updates are:
      | name    | append | last chunk | parts                             |
      | summary | no     | yes        | [{"text": "The short version"}]   |
      | details | no     | yes        | [{"data": {"items": ["a", "b"]}}] |
    And the stream ends with the task completed
    When the caller gets the task
    Then the task's artifacts are named "summary" and "details"

  @v0_3
  Scenario: An artifact streamed in chunks appends to the same artifact
    When the caller streams "artifact chunks"
    Then the stream's artifact updates are:
      | name   | append | last chunk | parts                  |
      | chunks | no     | no         | [{"text": "chunk-1 "}] |
      | chunks | yes    | yes        | [{"text": "chunk-2"}]  |
    When the caller gets the task
    Then the task's only artifact holds the parts [{"text": "chunk-1 "}, {"text": "chunk-2"}]

  # --- states ---

  @v0_3
  Scenario: A rejected task is terminal
    When the caller sends "reject"
    Then the task is rejected
    And the task's status message says "rejected"
    When the caller sends "hello again" to the task
    Then the call fails with UnsupportedOperation

  @v0_3
  Scenario: A streamed rejection ends the stream rejected
    When the caller streams "reject"
    Then the stream ends with the task rejected
    And the last status update says "rejected"

  @v0_3
  Scenario: An auth-required task waits for the caller and its answer resumes it
    When the caller sends "need auth"
    Then the task is auth-required
    And the task's status message says "Authentication required: send any message on this task to go on"
    And the task has 2 messages in its history
    When the caller answers "signed in"
    Then the answer continues the same task
    And the task is completed
    And the response artifact says "signed in"

  @v0_3
  Scenario: The stream closes when the task needs authentication
    When the caller streams "need auth"
    Then the stream ends with the task auth-required
    When the caller streams the answer "signed in"
    Then the stream continues the same task
    And the stream starts with the task auth-required
    And the stream ends with the task completed

  @v0_3
  Scenario: The agent can require input without a tool call
    When the caller sends "need input"
    Then the task is input-required
    And the task's status message says "Input required"

  @v0_3
  Scenario: A completed status can carry the agent's message
    When the caller sends "complete"
    Then the task is completed
    And the task's status message says "Hello from TCK"
    And the task has no artifacts

  @v0_3
  Scenario: Status updates carry a message and metadata
    When the caller streams "status metadata"
    Then the stream's status updates are:
      | state     | message       | metadata          |
      | working   |               |                   |
      | working   | Working on it | {"progress": 50}  |
      | completed |               | {"progress": 100} |

  # --- messageId prefixes ---

  @v0_3
  Scenario Outline: A messageId prefix asks for a shape whatever the text says
    When the caller sends "<command>"
    And the caller sends "hello" with a message id starting "<prefix>"
    Then the answer has the same shape as the one before

    Examples:
      | command          | prefix                      |
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

  # --- faults and timing on demand (issue 18): the script asks for one, the HTTP edge carries it out, and the task
  # --- ends as it would have (docs/scripted-agent.md, "Faults and timing")

  @v0_3
  Scenario: A stream cut on request breaks while its task runs to its end
    When the caller streams "cut after 3 events"
    Then the stream breaks after 3 events, without its end
    And the task becomes completed
    And the response artifact says "one two three four five."

  @v0_3
  Scenario: A subscription picks up the task of a stream that was cut
    When the caller streams "cut after 2 events"
    And the caller subscribes to the task
    Then the stream ends with the task completed

  Scenario: A cut stream's context takes the next message once its task ends
    When the caller streams "cut after 1 event"
    Then the task becomes completed
    When the caller sends "hello" in the same context
    Then the task is completed

  @v0_3
  Scenario Outline: A refusal on request gives way on the attempt after the last
    When the caller sends "refuse <status> 2 times, retry after 1"
    Then the call is refused as <refusal>, to retry after 1 second
    When the caller sends the same message again
    Then the call is refused as <refusal>, to retry after 1 second
    And no task was created
    When the caller sends the same message again
    Then the task is completed

    Examples:
      | status | refusal           |
      | 429    | too many requests |
      | 503    | unavailable       |

  @v0_3
  Scenario: A messageId prefix asks for a fault whatever the text says
    When the caller sends "ask: Which city?" with a message id starting "fault-refuse-503-1-2"
    Then the call is refused as unavailable, to retry after 2 seconds
    When the caller sends the same message again
    Then the task is input-required

  @v0_3
  Scenario: A reset on request does nothing, and the next attempt is answered
    When the caller sends "reset"
    Then the connection is reset before any answer
    And no task was created
    When the caller sends the same message again
    Then the task is completed

  Scenario: A frame that is not JSON comes on request, and the stream goes on
    When the caller streams "bad frame"
    Then right after the stream's first event comes a frame that is not JSON
    And the stream ends with the task completed

  Scenario: An answer that is not JSON on request leaves its task completed
    When the caller sends "not json"
    Then the answer's body is not JSON
    When the caller lists its tasks
    Then the list holds one task, completed

  @v0_3
  Scenario Outline: A fault asked for with a value it cannot take names the value
    When the caller sends "<command>"
    Then the call fails with InvalidParams
    And the error message says "<said>"
    And no task was created

    Examples:
      | command                            | said                                                          |
      | cut after 0 events                 | cutAfter '0': must be a whole number of events from 1 to 1000 |
      | slow start -1                      | firstByteDelay '-1': must be a number of seconds from 0 to 30 |
      | drip 11                            | eventDelay '11': must be a number of seconds from 0 to 10     |
      | refuse 200                         | refuse '200': is not an error status                          |
      | refuse 404                         | refuse '404': is not a status a client retries after          |
      | reset 11 times                     | times '11': must be a whole number of attempts from 1 to 10   |
      | refuse 429 2 times, retry after 61 | retryAfter '61': must be a whole number of seconds from 0     |

  Scenario Outline: A fault for the other kind of answer is refused with why
    When the caller <sends> "<command>"
    Then the call fails with InvalidParams
    And the error message says "<said>"

    Examples:
      | sends   | command            | said                                                  |
      | sends   | cut after 2 events | changes a stream: send this message with SendStreamingMessage |
      | streams | not json           | changes a SendMessage answer                          |
