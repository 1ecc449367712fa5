@push @no_binding @design
Feature: The push receiver records the pushes sent to the owner's watches
  Design, "Components": A2APushReceiver: POST /a2a/push/{watchId} → OnPush delegate (watchId, token,
  body) → false = 404. A push is authenticated by the watch's token, never by a caller key. The default
  host lists watches in watches.json and appends each accepted push to the watch's log, as it arrived.

  Background:
    Given a workspace of "owner-1" that watches "build-status" with the token "t-7f3a"

  Scenario: A push for a known watch with its token is recorded as received
    When a push notification arrives for "build-status" with the token "t-7f3a"
    Then the push is accepted
    And the log of "build-status" holds exactly that push

  Scenario: Pushes are logged one line each, in the order they arrived
    When 3 push notifications arrive for "build-status" with the token "t-7f3a"
    Then the log of "build-status" holds the 3 pushes in the order they arrived

  @PushReceiver_UnknownWatch_404
  Scenario: A push for an unknown watch is not found
    When a push notification arrives for "no-such-watch" with the token "t-7f3a"
    Then the push is refused as not found
    And no push is logged

  Scenario Outline: A push without the watch's token is not found
    # not found, as for an unknown watch: a stranger cannot tell which watches exist
    When a push notification arrives for "build-status" <token>
    Then the push is refused as not found
    And no push is logged

    Examples:
      | token                    |
      | with the token "t-wrong" |
      | with the token "T-7F3A"  |
      | with the token "t-7f3"   |
      | without a token          |

  Scenario: A watch without a token takes every push
    Given the workspace also watches "open-feed" without a token
    When a push notification arrives for "open-feed" without a token
    Then the push is accepted
    And the log of "open-feed" holds exactly that push

  Scenario Outline: A push for a watch id the server never gives is not found
    Given the workspace also watches "<watch>" with the token "t-7f3a"
    When a push notification arrives for "<watch>" with the token "t-7f3a"
    Then the push is refused as not found
    And no push is logged

    Examples:
      | watch        |
      | build.status |
      | build~status |
      | buildé       |

  Scenario: A push over the size limit is refused
    When a push notification of 2 MiB arrives for "build-status" with the token "t-7f3a"
    Then the push is refused as too large, with the limit in the message
    And no push is logged

  Scenario: A push that is not JSON is refused
    When a push notification that is not JSON arrives for "build-status" with the token "t-7f3a"
    Then the push is refused as not JSON
    And no push is logged

  Scenario: A malformed watches file means no watches
    Given the watches file is not valid JSON
    When a push notification arrives for "build-status" with the token "t-7f3a"
    Then the push is refused as not found
    And a warning names the watches file but not the token

  Scenario: An edit of watches.json applies to the next push
    When the owner removes "build-status" from the watches file
    And a push notification arrives for "build-status" with the token "t-7f3a"
    Then the push is refused as not found
    When the owner adds "build-status" with the token "t-7f3a" to the watches file
    And a push notification arrives for "build-status" with the token "t-7f3a"
    Then the push is accepted

  Scenario: The first workspace that lists the watch decides
    # owner-host mode looks through the owners' workspaces in order (the command lists them by folder name)
    Given a workspace of "owner-2" that watches "build-status" with the token "t-other"
    When a push notification arrives for "build-status" with the token "t-other"
    Then the push is refused as not found
    When a push notification arrives for "build-status" with the token "t-7f3a"
    Then the push is accepted
    And the log of "build-status" holds exactly that push
