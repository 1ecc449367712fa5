// Echo agent on the official @a2a-js/sdk server (express, in-memory task store): a peer for scripts/bench.py.
// Usage: node echo.mjs PORT  (listens on 127.0.0.1 only)
import { randomUUID } from "node:crypto";
import express from "express";
import { AGENT_CARD_PATH, Role, TaskState } from "@a2a-js/sdk";
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from "@a2a-js/sdk/server/express";

const port = Number(process.argv[2] ?? 0);
const base = `http://127.0.0.1:${port}`;

const card = {
  name: "a2a-js echo",
  description: "Echoes the user's text (benchmark peer).",
  supportedInterfaces: [
    { url: `${base}/a2a/jsonrpc`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" },
    { url: `${base}/a2a/rest`, protocolBinding: "HTTP+JSON", tenant: "", protocolVersion: "1.0" },
  ],
  provider: undefined,
  version: "1.0.0",
  capabilities: { streaming: true, pushNotifications: false, extensions: [] },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "echo", name: "Echo", description: "Echoes the text", tags: ["echo"], examples: [],
    inputModes: [], outputModes: [], securityRequirements: [] }],
  signatures: [],
};

const now = () => new Date().toISOString();

class EchoExecutor {
  async execute(context, bus) {
    const { taskId, contextId, userMessage } = context;
    const text = userMessage.parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("");
    bus.publish(AgentEvent.task({ id: taskId, contextId, status: { state: TaskState.TASK_STATE_SUBMITTED,
      message: undefined, timestamp: now() }, artifacts: [], history: [userMessage], metadata: undefined }));
    const status = (state) => AgentEvent.statusUpdate({ taskId, contextId,
      status: { state, message: undefined, timestamp: now() }, metadata: undefined });
    bus.publish(status(TaskState.TASK_STATE_WORKING));
    bus.publish(AgentEvent.artifactUpdate({ taskId, contextId, append: false, lastChunk: true, metadata: undefined,
      artifact: { artifactId: randomUUID(), name: "response", description: "", metadata: undefined, extensions: [],
        parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "" }] } }));
    bus.publish(status(TaskState.TASK_STATE_COMPLETED));
    bus.finished();
  }

  async cancelTask() {}
}

const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new EchoExecutor());
const app = express();
app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: handler }));
app.use("/a2a/jsonrpc", jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
app.use("/a2a/rest", restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
const server = app.listen(port, "127.0.0.1", () => console.log(`a2a-js echo on ${base}`));
const stop = () => server.close(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
