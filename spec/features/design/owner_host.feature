@owner_host @design
Feature: An owner host serves the workspaces of the owners it lists
  Design, "Telegram host" (a chat there is an owner here): for each allowed owner, read
  <WorkspaceRoot>/<owner>/.volcanic/a2a/callers.json on every call; notify_owner sends "🤖 A2A · <caller>: <text>"
  to the owner's chat; the a2a command lists callers (keys masked as …last4) and the last 10 tasks; A2A off = no endpoint.

  Background:
    Given an owner host for the owners "alice" and "bob", notifying them through a Telegram bot
    And "alice" has the caller "travel-bot"

  Scenario: A caller of a listed owner is served
    When the caller fetches the extended agent card
    Then the call succeeds

  @CallerDirectory_OnlyAllowedChats
  Scenario: A caller in the folder of an owner not listed is refused
    Given the folder "carol" under the root has the caller "stray-bot"
    When the caller fetches the extended agent card
    Then the call is refused as unauthenticated

  @CallerDirectory_OnlyAllowedChats
  Scenario: A folder of an owner not listed is never read
    Given the folder "carol" under the root holds the key of "travel-bot" as "twin-bot"
    When the caller fetches the extended agent card
    Then the call succeeds

  Scenario: A key of two listed owners is refused, naming the owners
    Given the folder "bob" under the root holds the key of "travel-bot" as "twin-bot"
    When the caller fetches the extended agent card
    Then the call is refused as unauthenticated
    And a warning names the owners "alice, bob" but not the key

  @CallerDirectory_LiveEdit
  Scenario: An edit of an owner's callers.json applies to the next request
    Given the caller presents the key of "late-bot", who is not in the callers file yet
    When the caller fetches the extended agent card
    Then the call is refused as unauthenticated
    When the owner adds "late-bot" to the callers file
    And the caller fetches the extended agent card
    Then the call succeeds
    When the owner removes "late-bot" from the callers file
    And the caller fetches the extended agent card
    Then the call is refused as unauthenticated

  # The owner list is a function asked on every request. The reference-server command builds it from --owner
  # (A2A__Owners) at start, or from an owners file (A2A__OwnersFile) read again when it changes; a host embedding the
  # server can change its own list at any time.
  Scenario: An owner an embedding host adds is served from the next request
    Given the folder "carol" under the root has the caller "stray-bot"
    When the host adds "carol" to its owners
    And the caller fetches the extended agent card
    Then the call succeeds

  Scenario: An owner added to the owners file is served from the next request
    Given the host reads its owners from a file
    And the folder "carol" under the root has the caller "stray-bot"
    When the caller fetches the extended agent card
    Then the call is refused as unauthenticated
    When the host's owners file also lists "carol"
    And the caller fetches the extended agent card
    Then the call succeeds

  Scenario: An owner taken off the owners file is refused from the next request
    Given the host reads its owners from a file
    When the caller fetches the extended agent card
    Then the call succeeds
    When the host's owners file no longer lists "alice"
    And the caller fetches the extended agent card
    Then the call is refused as unauthenticated

  Scenario: An owner's folder moved away is refused, and served once it is back
    When the owner's folder "alice" is moved away
    And the caller fetches the extended agent card
    Then the call is refused as unauthenticated
    When the owner's folder "alice" is moved back
    And the caller fetches the extended agent card
    Then the call succeeds

  Scenario: A task end is logged with the owner it ran for
    Given the owner watches the server's log
    When the caller sends "hello"
    Then the task is completed
    And the server logs the task's end once with the state completed

  @NotifyOwner_ReachesOwnersChat @v0_3
  Scenario: The notify_owner tool reaches the owner's chat
    Given the host logs everything
    When the caller sends "notify: call me"
    Then the task is completed
    And the response artifact says "I passed your note to my owner (delivered)."
    And the chat of "alice" got "🤖 A2A · travel-bot: call me"
    And the chat of "bob" got nothing
    And no log line holds the bot token or a caller's key

  Scenario: A failed notification is the agent's to handle, not a failed task
    Given the host logs everything
    And the Telegram bot may not write to the chat of "alice"
    When the caller sends "notify: call me"
    Then the task is completed
    And the response artifact begins with "I passed your note to my owner (Telegram refused the message"
    And a warning says notify_owner failed for the owner "alice"
    And no log line holds the bot token or a caller's key

  @A2aCommand_ListsMaskedCallersAndTasks
  Scenario Outline: The a2a command lists the callers with masked keys, and the tasks
    Given the workspace also has the caller "news-bot"
    When the caller sends "hello"
    And the host runs the a2a command for "alice" <format>
    Then the command lists "travel-bot" and "news-bot" as isolated callers, keys masked as …last4
    And the command lists one task, of "travel-bot", completed
    And the command's output holds no caller's key

    Examples:
      | format  |
      | as text |
      | as JSON |

  Scenario: The a2a command reports malformed files instead of failing
    Given the caller's task file is not valid JSON
    And the callers file is not valid JSON
    When the host runs the a2a command for "alice" as text
    Then the command reports the callers file as not valid JSON
    And the command reports the task file as not a valid task file

  @A2aDisabled_NoEndpoints @no_binding
  Scenario: A host with A2A switched off serves no A2A endpoint
    Given the owner watches the server's log
    And the host has A2A switched off
    When the caller tries every A2A endpoint, the push receiver and the public card
    Then none of them is found
    And the log said once that A2A is switched off
