// The official @a2a-js/sdk client, one operation per request line: driven by tests/interop/test_js_sdk.py.
//
// Usage: node driver.mjs BASE_URL KEY
// Reads one JSON request per line on stdin: {"mode": "jsonrpc-1.0"|"rest-1.0"|"jsonrpc-0.3"|"rest-0.3",
// "op": "send"|"stream"|..., "params": {...}} and writes one JSON answer per line on stdout:
// {"ok": true, "result": <what the SDK returned, as proto-JSON>, "wire": [<the HTTP requests it sent>]}
// or {"ok": false, "error": {"name", "kinds", "message", "events"}, "wire": [...]} (events: what a stream gave
// before it failed).
// The client is built as REAL-CLIENTS.md §5 says: the card fetched by DefaultAgentCardResolver, X-API-Key
// set by a fetchImpl wrapper given to the resolver and both transport factories, and, for the 0.3 modes,
// `legacyCompat: {enabled: true}` with the card's interfaces narrowed to the one under test.
import { createInterface } from "node:readline";
import {
  AgentCard,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from "@a2a-js/sdk";
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from "@a2a-js/sdk/client";
import * as errors from "@a2a-js/sdk/errors";

const [baseUrl, key] = process.argv.slice(2);
const CALL_TIMEOUT_MS = 10_000; // per call; a stream the server never closes fails the call, not the run
const BINDINGS = { jsonrpc: "JSONRPC", rest: "HTTP+JSON" };

let wire = [];

async function recordingFetch(input, init = {}) {
  const headers = new Headers(init.headers ?? {});
  headers.set("X-API-Key", key);
  const url = new URL(input instanceof Request ? input.url : String(input));
  const sent = { method: init.method ?? "GET", path: url.pathname, query: url.search,
    version: headers.get("a2a-version"), accept: headers.get("accept") };
  if (typeof init.body === "string" && init.body) {
    const body = JSON.parse(init.body);
    if (body.jsonrpc) Object.assign(sent, { rpcMethod: body.method, rpcIdType: typeof body.id });
    sent.body = body;
  }
  wire.push(sent);
  return fetch(input, { ...init, headers });
}

const resolver = new DefaultAgentCardResolver({ fetchImpl: recordingFetch, legacyCompat: { enabled: true } });
const clients = new Map();

async function clientFor(mode) {
  if (!clients.has(mode)) {
    const [binding, version] = mode.split("-");
    const card = await resolver.resolve(baseUrl);
    const chosen = card.supportedInterfaces.filter(
      (i) => i.protocolBinding === BINDINGS[binding] && i.protocolVersion === version);
    if (chosen.length !== 1) throw new Error(`the card has no single ${mode} interface`);
    const options = { fetchImpl: recordingFetch, legacyCompat: { enabled: true } };
    const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory(options), new RestTransportFactory(options)],
      preferredTransports: [BINDINGS[binding]],
    }));
    clients.set(mode, await factory.createFromAgentCard({ ...card, supportedInterfaces: chosen }));
  }
  return clients.get(mode);
}

function sendRequest({ text, taskId = "", contextId = "", messageId, returnImmediately = false }) {
  return SendMessageRequest.fromJSON({
    message: { messageId: messageId ?? crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }], taskId, contextId },
    configuration: returnImmediately ? { returnImmediately: true } : {},
  });
}

async function collect(stream) {
  const events = [];
  try {
    for await (const event of stream) events.push(StreamResponse.toJSON(event));
  } catch (error) {
    error.events = events; // what the stream gave before it failed (a stream cut on purpose, tests/interop)
    throw error;
  }
  return events;
}

const OPERATIONS = {
  send: async (client, params) => {
    const result = await client.sendMessage(sendRequest(params), options());
    return "messageId" in result ? { message: Message.toJSON(result) } : { task: Task.toJSON(result) };
  },
  stream: (client, params) => collect(client.sendMessageStream(sendRequest(params), options())),
  get: async (client, params) => Task.toJSON(await client.getTask(GetTaskRequest.fromJSON(params), options())),
  list: async (client, params) =>
    ListTasksResponse.toJSON(await client.listTasks(ListTasksRequest.fromJSON(params), options())),
  cancel: async (client, params) =>
    Task.toJSON(await client.cancelTask(CancelTaskRequest.fromJSON(params), options())),
  subscribe: (client, params) => collect(client.resubscribeTask(SubscribeToTaskRequest.fromJSON(params), options())),
  card: async (client) => AgentCard.toJSON(await client.getAgentCard(options())),
  pushCreate: async (client, params) => TaskPushNotificationConfig.toJSON(
    await client.createTaskPushNotificationConfig(TaskPushNotificationConfig.fromJSON(params), options())),
  pushGet: async (client, params) => TaskPushNotificationConfig.toJSON(
    await client.getTaskPushNotificationConfig(GetTaskPushNotificationConfigRequest.fromJSON(params), options())),
  // the SDK's name has no s (REAL-CLIENTS §5); the wire method is ListTaskPushNotificationConfigs
  pushList: async (client, params) => ListTaskPushNotificationConfigsResponse.toJSON(
    await client.listTaskPushNotificationConfig(ListTaskPushNotificationConfigsRequest.fromJSON(params), options())),
  pushDelete: async (client, params) => {
    await client.deleteTaskPushNotificationConfig(DeleteTaskPushNotificationConfigRequest.fromJSON(params), options());
    return null;
  },
};

function options() {
  return { signal: AbortSignal.timeout(CALL_TIMEOUT_MS) };
}

// the SDK's error classes the error is an instance of (JsonRpcTaskNotFoundError is a TaskNotFoundError)
function kindsOf(error) {
  return Object.entries(errors)
    .filter(([name, cls]) => name.endsWith("Error") && typeof cls === "function" && error instanceof cls)
    .map(([name]) => name);
}

async function handle(line) {
  const { mode, op, params = {} } = JSON.parse(line);
  wire = [];
  try {
    const client = await clientFor(mode);
    wire = []; // the card GET of a new client is not part of the operation
    const result = await OPERATIONS[op](client, params);
    return { ok: true, result, wire };
  } catch (error) {
    return { ok: false, error: { name: error.constructor.name, kinds: kindsOf(error), message: String(error.message),
      events: error.events ?? [] }, wire };
  }
}

for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim()) process.stdout.write(JSON.stringify(await handle(line)) + "\n");
}
