// A TCK-ready agent on the official @a2a-js/sdk server (express): a peer for `make conformance-peers`.
// It answers a message by its messageId prefix, the convention of the A2A TCK (a2a-tck 1.0-dev,
// scenarios/core_operations.feature and streaming.feature), with the server's defaults everywhere else: JSON-RPC at
// /a2a/jsonrpc and HTTP+JSON at /a2a/rest in A2A 1.0, streaming, push notifications (the SDK's in-memory store and
// sender), no extended card and no security scheme.
// Usage: node tck_agent.mjs PORT  (listens on 127.0.0.1 only)
import { randomUUID } from "node:crypto";
import express from "express";
import { AGENT_CARD_PATH, Role, TaskState } from "@a2a-js/sdk";
import {
  AgentEvent, DefaultPushNotificationSender, DefaultRequestHandler, InMemoryPushNotificationStore, InMemoryTaskStore,
} from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from "@a2a-js/sdk/server/express";

const port = Number(process.argv[2] ?? 0);
const base = `http://127.0.0.1:${port}`;
const LONG_RUN_MS = 4000; // test-resubscribe-message-id: "wait for 2x streaming timeout" (the TCK's is 2 s)

const card = {
  name: "a2a-js TCK agent",
  description: "Answers by the A2A TCK's messageId prefixes (conformance peer).",
  supportedInterfaces: [
    { url: `${base}/a2a/jsonrpc`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" },
    { url: `${base}/a2a/rest`, protocolBinding: "HTTP+JSON", tenant: "", protocolVersion: "1.0" },
  ],
  provider: undefined,
  version: "1.0.0",
  capabilities: { streaming: true, pushNotifications: true, extensions: [] },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "tck", name: "TCK", description: "Answers by messageId prefix", tags: ["tck"], examples: [],
    inputModes: [], outputModes: [], securityRequirements: [] }],
  signatures: [],
};

const now = () => new Date().toISOString();
const text = (value) => ({ content: { $case: "text", value }, metadata: undefined, filename: "", mediaType: "" });
const fileBytes = () => ({ content: { $case: "raw", value: Buffer.from("tck") }, metadata: undefined,
  filename: "output.txt", mediaType: "text/plain" });
const fileUrl = () => ({ content: { $case: "url", value: "https://example.com/output.txt" }, metadata: undefined,
  filename: "output.txt", mediaType: "text/plain" });
const data = (value) => ({ content: { $case: "data", value }, metadata: undefined, filename: "", mediaType: "" });

class TckExecutor {
  contexts = new Map(); // task id -> context id: cancelTask is given the task id only

  async execute(context, bus) {
    const { taskId, contextId, userMessage, task } = context;
    this.contexts.set(taskId, contextId);
    const prefix = userMessage.messageId;
    const agentMessage = (parts) => ({ messageId: randomUUID(), contextId, taskId, role: Role.ROLE_AGENT, parts,
      metadata: undefined, extensions: [], referenceTaskIds: [] });
    if (prefix.startsWith("tck-message-response")) {
      bus.publish(AgentEvent.message({ ...agentMessage([text("Direct message response")]), taskId: "" }));
      bus.finished();
      return;
    }
    // every call starts with the task: a new one, or the one the message continues
    bus.publish(AgentEvent.task(task ?? { id: taskId, contextId, status: { state: TaskState.TASK_STATE_SUBMITTED,
      message: undefined, timestamp: now() }, artifacts: [], history: [userMessage], metadata: undefined }));
    const status = (state, message = undefined) => bus.publish(AgentEvent.statusUpdate({ taskId, contextId,
      status: { state, message, timestamp: now() }, metadata: undefined }));
    const artifact = (parts, { append = false, lastChunk = true, id = randomUUID() } = {}) =>
      bus.publish(AgentEvent.artifactUpdate({ taskId, contextId, append, lastChunk, metadata: undefined,
        artifact: { artifactId: id, name: "", description: "", metadata: undefined, extensions: [], parts } }));
    const artifactThenComplete = (parts, working) => {
      if (working) status(TaskState.TASK_STATE_WORKING);
      artifact(parts);
      status(TaskState.TASK_STATE_COMPLETED);
    };

    // the longer prefix first where one starts another
    if (prefix.startsWith("tck-stream-artifact-chunked")) {
      const id = randomUUID();
      status(TaskState.TASK_STATE_WORKING);
      artifact([text("chunk-1 ")], { lastChunk: false, id });
      artifact([text("chunk-2")], { append: true, lastChunk: true, id });
      status(TaskState.TASK_STATE_COMPLETED);
    } else if (prefix.startsWith("tck-stream-artifact-text")) {
      artifactThenComplete([text("Streamed text content")], true);
    } else if (prefix.startsWith("tck-stream-artifact-file")) {
      artifactThenComplete([fileBytes()], true);
    } else if (prefix.startsWith("tck-stream-001")) {
      artifactThenComplete([text("Stream hello from TCK")], true);
    } else if (prefix.startsWith("tck-stream-003")) {
      artifactThenComplete([text("Stream task lifecycle")], true);
    } else if (prefix.startsWith("tck-stream-ordering-001")) {
      artifactThenComplete([text("Ordered output")], true);
    } else if (prefix.startsWith("tck-stream-002")) {
      status(TaskState.TASK_STATE_COMPLETED);
    } else if (prefix.startsWith("test-resubscribe-message-id")) {
      status(TaskState.TASK_STATE_WORKING);
      await new Promise((resolve) => setTimeout(resolve, LONG_RUN_MS));
      status(TaskState.TASK_STATE_COMPLETED);
    } else if (prefix.startsWith("tck-artifact-file-url")) {
      artifactThenComplete([fileUrl()], false);
    } else if (prefix.startsWith("tck-artifact-file")) {
      artifactThenComplete([fileBytes()], false);
    } else if (prefix.startsWith("tck-artifact-text")) {
      artifactThenComplete([text("Generated text content")], false);
    } else if (prefix.startsWith("tck-artifact-data")) {
      artifactThenComplete([data({ key: "value", count: 42 })], false);
    } else if (prefix.startsWith("tck-input-required")) {
      status(TaskState.TASK_STATE_INPUT_REQUIRED);
    } else if (prefix.startsWith("tck-reject-task")) {
      status(TaskState.TASK_STATE_REJECTED, agentMessage([text("rejected")]));
    } else if (prefix.startsWith("tck-complete-task")) {
      status(TaskState.TASK_STATE_COMPLETED, agentMessage([text("Hello from TCK")]));
    } else {
      status(TaskState.TASK_STATE_COMPLETED, agentMessage([text(`Unhandled messageId prefix: ${prefix}`)]));
    }
    bus.finished();
  }

  async cancelTask(taskId, bus) {
    bus.publish(AgentEvent.statusUpdate({ taskId, contextId: this.contexts.get(taskId) ?? "",
      status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: now() }, metadata: undefined }));
    bus.finished();
  }
}

const taskStore = new InMemoryTaskStore();
const pushStore = new InMemoryPushNotificationStore();
const handler = new DefaultRequestHandler(card, taskStore, new TckExecutor(), undefined, pushStore,
  new DefaultPushNotificationSender(pushStore));
const app = express();
app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: handler }));
app.use("/a2a/jsonrpc", jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
app.use("/a2a/rest", restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
const server = app.listen(port, "127.0.0.1", () => console.log(`a2a-js TCK agent on ${base}`));
const stop = () => server.close(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
