@auth @design
Feature: Callers authenticate with a key from the agent's owner
  Design, "Authentication and tenancy": every endpoint except the public card needs a key. The
  workspace whose callers.json holds the key is the assistant the caller talks to. No match → 401;
  the same key on more than one caller → 401 and a warning naming the owners, never the key.

  Background:
    Given a workspace of "owner-1" with the caller "travel-bot"

  @v0_3
  Scenario: A known key in X-API-Key is accepted
    When the caller fetches the extended agent card
    Then the call succeeds

  Scenario: The key is also accepted as a bearer token
    Given the caller presents its key as a bearer token
    When the caller fetches the extended agent card
    Then the call succeeds

  @server
  Scenario Outline: Credentials that disagree are refused, saying why
    Given the caller's request carries <credentials>
    When the caller fetches the extended agent card
    Then the call is refused as unauthenticated
    And the refusal says "<reason>"

    Examples:
      | credentials                                            | reason                  |
      | its key in X-API-Key and another key as a bearer token | carry different keys    |
      | another key and then its key, in two X-API-Key headers | More than one X-API-Key |
      | its key in two X-API-Key headers                       | send the key once       |
      | its key as a bearer token twice                        | send the key once       |

  @server
  Scenario: The same key in X-API-Key and as a bearer token is accepted
    Given the caller's request carries its key in X-API-Key and the same key as a bearer token
    When the caller fetches the extended agent card
    Then the call succeeds

  @no_binding @server
  Scenario Outline: No spelling of an A2A path reaches an operation without a key
    # the router ignores case; the key check sits on every A2A handler, so no spelling gets past it
    Given the caller presents no key
    When the caller requests <verb> on the server path <path>
    Then the server <answer>

    Examples:
      | verb | path                      | answer                        |
      | POST | /A2A                      | refuses it as unauthenticated |
      | POST | /a2a/                     | refuses it as unauthenticated |
      | GET  | /A2A/v1/tasks             | refuses it as unauthenticated |
      | GET  | /a2a/V1/TASKS             | refuses it as unauthenticated |
      | POST | /a2a/v1/MESSAGE:SEND      | refuses it as unauthenticated |
      | GET  | /A2A/V1/EXTENDEDAGENTCARD | refuses it as unauthenticated |
      | GET  | /a2a/v1/tasks/            | refuses it as unauthenticated |
      | GET  | /a2a/v1/tasks%2F          | refuses it as unauthenticated |
      | GET  | /a2a/v1/../v1/tasks       | refuses it as unauthenticated |
      | GET  | /%61%32%61/v1/tasks       | knows no such route           |
      | GET  | /a2a%2Fv1/tasks           | knows no such route           |
      | GET  | /a2a//v1/tasks            | knows no such route           |

  Scenario: A call without a key is refused
    Given the caller presents no key
    When the caller fetches the extended agent card
    Then the call is refused as unauthenticated

  @Auth_UnknownKey_Returns401 @v0_3
  Scenario: An unknown key is refused
    Given the caller presents the key "k_not-in-any-callers-file"
    When the caller fetches the extended agent card
    Then the call is refused as unauthenticated

  @Auth_KeyInTwoWorkspaces_Returns401
  Scenario: A key found in two workspaces is refused
    Given a workspace of "owner-2" whose caller "twin-bot" holds the same key
    When the caller fetches the extended agent card
    Then the call is refused as unauthenticated
    And a warning names the owners "owner-1, owner-2" but not the key

  Scenario: A key listed twice in one callers file is refused
    Given the callers file also lists "travel-bot-2" with the same key
    When the caller fetches the extended agent card
    Then the call is refused as unauthenticated
    And a warning names the owners "owner-1" but not the key

  @Auth_CallersFileEdited_AppliesToNextRequest
  Scenario: An edit of callers.json applies to the next request
    Given the caller presents the key of "late-bot", who is not in the callers file yet
    When the caller fetches the extended agent card
    Then the call is refused as unauthenticated
    When the owner adds "late-bot" to the callers file
    And the caller fetches the extended agent card
    Then the call succeeds
    When the owner removes "late-bot" from the callers file
    And the caller fetches the extended agent card
    Then the call is refused as unauthenticated

  Scenario Outline: An edit of callers.json applies to the request sent as it returns
    # design README, "Reading files on every request": the kernel queues a notification when a write completes and
    # the server has read that queue before each lookup (or, by stat, checks each file); 20 rounds leave luck no room
    Given the server learns of file changes by <means>
    When the owner <edit> and undoes it, 20 times, with a fetch of the extended agent card as each edit returns
    Then every fetch after the edit <after>, and every fetch after the undo <undone>

    Examples:
      | means                | edit                                                        | after                         | undone                        |
      | kernel notifications | adds a caller with the presented key                        | succeeds                      | is refused as unauthenticated |
      | kernel notifications | removes the caller of the presented key                     | is refused as unauthenticated | succeeds                      |
      | kernel notifications | adds a caller with the presented key, saving by rename      | succeeds                      | is refused as unauthenticated |
      | kernel notifications | removes the caller of the presented key, saving by rename   | is refused as unauthenticated | succeeds                      |
      | stat                 | adds a caller with the presented key                        | succeeds                      | is refused as unauthenticated |
      | stat                 | removes the caller of the presented key                     | is refused as unauthenticated | succeeds                      |

  Scenario Outline: A key made ambiguous is refused by the request sent as it happens
    Given the server learns of file changes by <means>
    When the owner copies the presented key into the callers file of "owner-2" and undoes it, 20 times, with a fetch of the extended agent card as each edit returns
    Then every fetch after the edit is refused as unauthenticated, and every fetch after the undo succeeds
    And a warning names the owners "owner-1, owner-2" but not the key

    Examples:
      | means                |
      | kernel notifications |
      | stat                 |

  @Auth_MalformedCallersFile_NoCallers
  Scenario: A malformed callers file means no callers
    Given the callers file is not valid JSON
    When the caller fetches the extended agent card
    Then the call is refused as unauthenticated
    And a warning names the callers file but not the key
    And the callers file is warned about once, however often the caller asks

  Scenario Outline: Caller entries are checked one by one
    Given the callers file holds the entry <entry> for the caller's key
    When the caller fetches the extended agent card
    Then the caller is <outcome>

    Examples:
      | entry                                                           | outcome  |
      | {"name": "ok-bot", "mode": "isolated"}                          | accepted |
      | {"name": "ok-bot"}                                              | accepted |
      | {"name": "ok-bot", "color": "blue", "note": "extra is ignored"} | accepted |
      | {"name": "Not Valid"}                                           | refused  |
      | {"name": "ok-bot", "mode": "owner"}                             | refused  |
      | {"mode": "isolated"}                                            | refused  |

  Scenario Outline: Every A2A operation needs a key
    Given the caller presents no key
    When the caller calls <operation>
    Then the call is refused as unauthenticated

    Examples:
      | operation            |
      | SendMessage          |
      | SendStreamingMessage |
      | GetTask              |
      | ListTasks            |
      | CancelTask           |
      | SubscribeToTask      |
      | GetExtendedAgentCard |
