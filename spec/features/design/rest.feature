@bindings @rest @server
Feature: The HTTP+JSON binding as this server serves it
  Design README: the routes under /a2a/v1; SubscribeToTask on GET and POST; cancel takes an empty body; 0.3 REST
  follows the 0.3 proto's routes (/v1/... under /a2a: the same paths, told apart by A2A-Version). Query values
  are checked and paths matched byte for byte. A2A's own rules are in spec/features/a2a/rest.feature.

  Background:
    Given a workspace of "owner-1" with the caller "travel-bot"

  @design
  Scenario Outline: Every 0.3 route is served
    Given the caller sends A2A-Version "0.3"
    When the caller requests <verb> <route>
    Then the answer is HTTP <status> <outcome>

    Examples:
      | verb   | route                                                                      | status | outcome                         |
      | POST   | /message:send                                                              | 400    | naming the field "message"      |
      | POST   | /message:stream                                                            | 400    | naming the field "message"      |
      | GET    | /tasks/00000000-0000-4000-8000-000000000000                                | 404    | with reason TASK_NOT_FOUND      |
      | POST   | /tasks/00000000-0000-4000-8000-000000000000:cancel                         | 404    | with reason TASK_NOT_FOUND      |
      | POST   | /tasks/00000000-0000-4000-8000-000000000000:subscribe                      | 404    | with reason TASK_NOT_FOUND      |
      | GET    | /tasks/00000000-0000-4000-8000-000000000000:subscribe                      | 404    | with reason TASK_NOT_FOUND      |
      | POST   | /tasks/00000000-0000-4000-8000-000000000000/pushNotificationConfigs        | 400    | naming the field "config"       |
      | GET    | /tasks/00000000-0000-4000-8000-000000000000/pushNotificationConfigs        | 404    | with reason TASK_NOT_FOUND      |
      | GET    | /tasks/00000000-0000-4000-8000-000000000000/pushNotificationConfigs/c1     | 404    | with reason TASK_NOT_FOUND      |
      | DELETE | /tasks/00000000-0000-4000-8000-000000000000/pushNotificationConfigs/c1     | 404    | with reason TASK_NOT_FOUND      |
      | GET    | /card                                                                      | 200    | with a 0.3 agent card           |

  Scenario Outline: A route of one version refuses the other with a hint
    Given the caller sends A2A-Version "<version>"
    When the caller requests GET <route>
    Then the answer is HTTP 400 with reason VERSION_NOT_SUPPORTED
    And the error message says "send the header A2A-Version: <other>"

    Examples:
      | version | route              | other |
      | 0.3     | /tasks             | 1.0   |
      | 0.3     | /extendedAgentCard | 1.0   |
      | 1.0     | /card              | 0.3   |

  Scenario Outline: Unknown routes get a 404 google.rpc.Status
    When the caller requests <verb> <route>
    Then the answer is HTTP 404 with the status NOT_FOUND

    Examples:
      | verb | route              |
      | GET  | /nowhere           |
      | POST | /message:teleport  |
      | PUT  | /tasks             |

  Scenario: Query parameters are camelCase and checked
    When the caller requests GET /tasks?pageSize=0
    Then the answer is HTTP 400 naming the field "pageSize"

  Scenario: A page size of thousands of digits names the field
    When the caller lists tasks with a pageSize of 4,301 nines
    Then the answer is HTTP 400 naming the field "pageSize"

  Scenario: An escaped colon in the path is not a route
    When the caller requests POST /message%3Asend
    Then the answer is HTTP 404 with the status NOT_FOUND

  Scenario: A repeated query parameter is refused
    When the caller requests GET /tasks?pageSize=1&pageSize=2
    Then the answer is HTTP 400 naming the field "pageSize"

  Scenario: A path outside the A2A endpoints gets a JSON 404 with a hint
    When the caller requests GET on the server path /a2a/v2/tasks
    Then the answer is HTTP 404 with the status NOT_FOUND
    And the error message says "A2A is served at POST /a2a"

  @design
  Scenario: A task is canceled with an empty body, as the JS client sends it
    When the caller sends "sleep 30" without waiting
    And the caller cancels the task with an empty body
    Then the task is canceled

  @design
  Scenario: SubscribeToTask answers GET as well as POST
    When the caller sends "sleep 1" without waiting
    And the caller subscribes to the task with GET
    Then the stream starts with the task working
    And the stream ends with the task completed
