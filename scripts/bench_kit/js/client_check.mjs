// A sample A2A client on the official @a2a-js/sdk, for `make client-check` (docs/client-testing.md).
// It reads A2A_URL and A2A_KEY, then calls every operation once on each 1.0 binding, and the 0.3 ones through the
// SDK's legacy transports. Usage: make client-check CLIENT='node scripts/bench_kit/js/client_check.mjs'
import { randomUUID } from "node:crypto";
import { GetTaskRequest, ListTasksRequest, SendMessageRequest, TaskPushNotificationConfig } from "@a2a-js/sdk";
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from "@a2a-js/sdk/client";

const base = process.env.A2A_URL;
const key = process.env.A2A_KEY;
if (!base || !key) {
  console.error("A2A_URL and A2A_KEY must be set");
  process.exit(2);
}

// the key on every request, the card's included (REAL-CLIENTS §5: a fetch wrapper given to everything)
const fetchImpl = (input, init = {}) => {
  const headers = new Headers(init.headers);
  headers.set("X-API-Key", key);
  return fetch(input, { ...init, headers, signal: init.signal ?? AbortSignal.timeout(20_000) });
};

function factory(binding, legacy) {
  const options = { fetchImpl, legacyCompat: { enabled: legacy } };
  return new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory(options), new RestTransportFactory(options)],
    preferredTransports: [binding],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl, legacyCompat: { enabled: legacy } }),
  }));
}

async function clientFor(binding, version) {
  const card = await new DefaultAgentCardResolver({ fetchImpl }).resolve(base);
  // keep only the interfaces of the version under test: the SDK takes the first one of the preferred binding
  card.supportedInterfaces = card.supportedInterfaces.filter((i) => i.protocolVersion === version);
  return factory(binding, version === "0.3").createFromAgentCard(card);
}

const send = (text, extra = {}) => SendMessageRequest.fromJSON({
  message: { messageId: randomUUID(), role: "ROLE_USER", parts: [{ text }], ...extra.message },
  configuration: extra.configuration ?? {},
});
const taskOf = (result) => {
  if (!result.id) throw new Error(`expected a task, got ${JSON.stringify(result)}`);
  return result;
};
const drain = async (stream) => {
  const events = [];
  for await (const event of stream) events.push(event);
  return events;
};

async function exercise(binding, version) {
  const client = await clientFor(binding, version);
  const done = taskOf(await client.sendMessage(send("hello from the JS SDK")));
  await client.getTask(GetTaskRequest.fromJSON({ id: done.id, historyLength: 1 }));
  const asked = taskOf(await client.sendMessage(send("ask: Which city?")));
  await client.sendMessage(send("Lisbon", { message: { taskId: asked.id, contextId: asked.contextId } }));
  if (version === "1.0") {  // 0.3 has no ListTasks
    // every page, each nextPageToken followed until it is empty (A2A §3.1.4; the report's pages-followed)
    let page = await client.listTasks(ListTasksRequest.fromJSON({ pageSize: 2 }));
    while (page.nextPageToken) {
      page = await client.listTasks(ListTasksRequest.fromJSON({ pageSize: 2, pageToken: page.nextPageToken }));
    }
  }
  await drain(client.sendMessageStream(send("streamed hello")));
  const long = taskOf(await client.sendMessage(send("sleep 30", { configuration: { returnImmediately: true } })));
  await client.cancelTask({ id: long.id, tenant: "", metadata: undefined });
  const short = taskOf(await client.sendMessage(send("sleep 1", { configuration: { returnImmediately: true } })));
  await drain(client.resubscribeTask({ id: short.id, tenant: "" }));
  const waiting = taskOf(await client.sendMessage(send("ask: Which date?")));
  const config = await client.createTaskPushNotificationConfig(TaskPushNotificationConfig.fromJSON({
    taskId: waiting.id, url: "https://hooks.example.com/notify", token: "tok-js" }));
  await client.getTaskPushNotificationConfig({ taskId: waiting.id, id: config.id, tenant: "" });
  await client.listTaskPushNotificationConfig({ taskId: waiting.id, pageSize: 0, pageToken: "", tenant: "" });
  await client.deleteTaskPushNotificationConfig({ taskId: waiting.id, id: config.id, tenant: "" });
  await client.getAgentCard();
  console.log(`${binding} ${version}: every operation answered`);
}

for (const [binding, version] of [["JSONRPC", "1.0"], ["HTTP+JSON", "1.0"], ["JSONRPC", "0.3"], ["HTTP+JSON", "0.3"]]) {
  await exercise(binding, version);
}
