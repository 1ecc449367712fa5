@push @design
Feature: Push notifications
  A2A §3.1.7-3.1.10, §4.3.3 and the design's "Push sending": a caller registers webhooks for its task (at most
  MaxPushConfigs, 10 by default), and on each new state the whole task is POSTed to them, with the config's token
  and credentials; 3 attempts, waiting 1 s then 5 s. URLs must be https (http and private hosts only with
  AllowPrivatePushUrls), each address checked at connect time, through one guarded client that follows no redirect.

  Background:
    Given a workspace of "owner-1" with the caller "travel-bot"
    And a webhook that records what it receives

  @v0_3
  Scenario: A push config is created, got, listed and deleted
    Given the caller has a task waiting for input
    When the caller creates a push config for the task with the token "tok-1"
    Then the push config has an id chosen by the server
    And getting the push config gives the webhook and the token "tok-1"
    And listing the task's push configs gives that config only
    When the caller deletes the push config
    Then the call succeeds
    And listing the task's push configs gives none
    When the caller deletes the push config
    Then the call succeeds

  @v0_3 @server
  Scenario: A push config set again with its id replaces the old one
    Given the caller has a task waiting for input
    When the caller creates the push config "hook-1" for the task with the token "old"
    And the caller creates the push config "hook-1" for the task with the token "new"
    Then listing the task's push configs gives "hook-1" with the token "new" only

  @v0_3 @server
  Scenario: A task takes no more push configs than MaxPushConfigs allows
    Given the server allows 2 push configs per task
    And the caller has a task waiting for input
    When the caller creates the push config "hook-1" for the task with the token "a"
    And the caller creates the push config "hook-2" for the task with the token "b"
    And the caller tries to create the push config "hook-3" for the task
    Then the call fails with InvalidParams
    And the error message says "already has 2 push notification configs, the most a task may have"
    And the error message says "A2A__MaxPushConfigs is 2"
    When the caller creates the push config "hook-2" for the task with the token "new"
    Then the task has the push configs "hook-1" and "hook-2"

  Scenario: Another caller can neither see nor change a task's push configs
    Given the workspace also has the caller "other-bot"
    And the caller has a task waiting for input
    And the caller creates a push config for the task with the token "tok-1"
    When "other-bot" gets the push config
    Then the call fails with TaskNotFound
    When "other-bot" lists the task's push configs
    Then the call fails with TaskNotFound
    When "other-bot" deletes the push config
    Then the call fails with TaskNotFound
    When "other-bot" creates a push config for the task
    Then the call fails with TaskNotFound

  @v0_3
  Scenario: A push config that does not exist is not found
    Given the caller has a task waiting for input
    When the caller gets the push config "no-such-config"
    Then the call fails with TaskNotFound

  @Push_DeliveredWithToken @v0_3
  Scenario: A push config sent with a message gets each state and its token
    When the caller sends "hello" with a push config for the webhook and the token "tok-2"
    Then the webhook receives the task as working, then completed
    And every push carries the token "tok-2"
    And every push is the whole task, valid against the schema of the config's A2A version

  Scenario: A push config's credentials are sent as the Authorization header
    When the caller sends "hello" with a push config for the webhook with the scheme "Bearer" and the credentials "s3cret"
    Then the webhook receives the task as working, then completed
    And every push carries the header Authorization "Bearer s3cret"

  @v0_3
  Scenario: Pushes arrive in the order of the task's states
    When the caller sends "ask: Which city?" with a push config for the webhook and the token "tok-3"
    And the caller answers "Paris"
    Then the webhook receives the task as working, then input-required, then working, then completed

  Scenario: A push config added to a running task hears of its next states
    When the caller sends "sleep 2" without waiting
    And the caller creates a push config for the task with the token "late"
    Then the webhook receives the task as completed

  Scenario: A webhook that fails is retried after 1 s and then 5 s
    Given the webhook fails 2 times before it accepts
    When the caller sends "hello" with a push config for the webhook and the token "tok-4"
    Then the webhook receives the task as working, working, working, then completed
    And the pushes waited 1 s, then 5 s

  Scenario: A failing webhook is given up after three attempts
    Given the webhook fails 6 times before it accepts
    When the caller sends "hello" with a push config for the webhook and the token "tok-5"
    Then the webhook receives the working push 3 times, then the completed push 3 times, and nothing more
    And the server logs that pushes for the task were dropped after 3 attempts, without the token

  Scenario: A webhook's redirect is not followed
    Given the webhook redirects to another webhook
    When the caller sends "hello" with a push config for the webhook and the token "tok-6"
    Then the webhook receives the working push 3 times, then the completed push 3 times, and nothing more
    And the other webhook receives nothing
    And the server logs that pushes for the task were dropped after 3 attempts, without the token

  @Push_PrivateUrl_RejectedUnlessAllowed @v0_3
  Scenario Outline: A private or plain-http webhook is refused unless allowed
    Given the server does not allow private push URLs
    And the caller has a task waiting for input
    When the caller creates a push config for the task with the URL "<url>"
    Then the call fails with InvalidParams
    And the error names the push config's URL, saying "<why>"

    Examples:
      | url                              | why                                                |
      | https://127.0.0.1/hook           | blocked address: loopback 127.0.0.0/8              |
      | https://10.1.2.3/hook            | blocked address: private 10.0.0.0/8                |
      | https://169.254.169.254/latest   | blocked address: link-local 169.254.0.0/16         |
      | https://[::ffff:192.168.0.1]/h   | IPv4-mapped ::ffff:0:0/96 of 192.168.0.1, private  |
      | http://hooks.example.com/notify     | the URL scheme must be https                       |

  Scenario: A private webhook is accepted when private URLs are allowed
    Given the caller has a task waiting for input
    When the caller creates a push config for the task with the URL "http://127.0.0.1:9/hook"
    Then the call succeeds

  Scenario: A host name resolving to a private address gets nothing
    Given the server does not allow private push URLs
    When the caller sends "hello" with a push config for "push.test", a name that resolves to 127.0.0.1
    Then the call succeeds
    And the server logs that pushes for the task were dropped after 3 attempts, without the token
    And the webhook received nothing

  @v0_3
  Scenario: A message's push config that is not https is refused
    Given the server does not allow private push URLs
    When the caller sends "hello" with a push config for the URL "http://hooks.example.com/notify"
    Then the call fails with InvalidParams
    And the error names the URL of the message's push config, saying "the URL scheme must be https"
    And the caller has no tasks
