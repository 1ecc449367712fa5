// An echo agent on @voltagent/a2a-server (an A2A 0.3 server, independent of the official SDKs): a peer for
// `make conformance-peers`, a plain agent that follows no TCK convention.
//
// scripts/bench_kit/independent.py installs package-lock.json (beside this file) into the user's cache, copies this
// file there and runs `node serve.mjs <port>` from there, with NODE_ENV=production. It serves on 127.0.0.1:<port>:
//   card      GET  /.well-known/echo/agent-card.json   (VoltAgent keeps a card per A2A server id, never at the
//                                                      well-known path itself: the run sets A2A_TARGET_CARD_URL)
//   JSON-RPC  POST /a2a/echo
// The agent is a VoltAgent Agent whose model is the AI SDK's mock model (ai/test), answering with the last user
// text: no model provider and no key.
//
// Nothing leaves the machine. Read in @voltagent/core 2.10.0 and @voltagent/server-core 2.x:
// - the model registry refreshes itself from models.dev at import, and every few hours, unless NODE_ENV is
//   "production" (ModelProviderRegistry.startAutoRefresh); NODE_ENV is set below, before the first import;
// - honoServer's provider, at every start, fetches announcements from GitHub (showAnnouncements, whatever
//   NODE_ENV says) and probes its port by listening on 0.0.0.0; its /updates routes ask the npm registry
//   (checkForUpdates) and POST /updates runs `npm install`. So the app is built here with VoltAgent's own
//   createVoltAgentApp, its CORS middleware and its A2A routes only, and served on 127.0.0.1 by the same
//   @hono/node-server that honoServer uses;
// - VoltOps (traces and logs to api.voltagent.dev) is configured only from VOLTAGENT_PUBLIC_KEY/SECRET_KEY,
//   which are removed below;
// - and any other fetch to a host off the machine is refused, with one line on stderr.

import { createRequire } from "node:module";

const port = Number(process.argv[2]);
if (!Number.isInteger(port) || port <= 0) {
  console.error("usage: node serve.mjs <port>");
  process.exit(2);
}
process.env.NODE_ENV = "production";
for (const name of Object.keys(process.env)) {
  if (name.startsWith("VOLTAGENT_") || name.startsWith("OTEL_")) delete process.env[name];
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);
const realFetch = globalThis.fetch;
globalThis.fetch = async (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (!LOOPBACK.has(url.hostname)) {
    console.error(`conformance peer: refused a fetch to ${url.origin} (off this machine)`);
    throw new TypeError(`fetch to ${url.origin} refused: the conformance peer stays on this machine`);
  }
  return realFetch(input, init);
};

// imported only now: @voltagent/core reads NODE_ENV when it is first evaluated
const { Agent, VoltAgent } = await import("@voltagent/core");
const { A2AServer } = await import("@voltagent/a2a-server");
const { createVoltAgentApp } = await import("@voltagent/server-hono");
const { simulateReadableStream } = await import("ai");
const { MockLanguageModelV3 } = await import("ai/test");
// the @hono/node-server that @voltagent/server-hono itself resolves and serves with
const { serve } = createRequire(import.meta.resolve("@voltagent/server-hono"))("@hono/node-server");

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};
const stop = { unified: "stop", raw: undefined };

function lastUserText(prompt) {
  const user = prompt.findLast((message) => message.role === "user");
  if (user === undefined) return "";
  if (typeof user.content === "string") return user.content;
  return user.content.filter((part) => part.type === "text").map((part) => part.text).join("");
}

const model = new MockLanguageModelV3({
  doGenerate: async ({ prompt }) => ({
    content: [{ type: "text", text: lastUserText(prompt) }], finishReason: stop, usage, warnings: [],
  }),
  doStream: async ({ prompt }) => ({
    stream: simulateReadableStream({
      chunks: [
        { type: "text-start", id: "echo" },
        { type: "text-delta", id: "echo", delta: lastUserText(prompt) },
        { type: "text-end", id: "echo" },
        { type: "finish", finishReason: stop, usage },
      ],
    }),
  }),
});

// a server provider (the shape VoltAgent's `server` option takes: start, stop, isRunning) serving VoltAgent's app
// with its CORS middleware and A2A routes, on loopback only
function loopbackServer(deps) {
  let server = null;
  return {
    async start() {
      const { app } = await createVoltAgentApp(deps, {
        configureFullApp: ({ routes, middlewares }) => {
          middlewares.cors();
          routes.a2a();
        },
      }, port);
      await new Promise((resolve, reject) => {
        server = serve({ fetch: app.fetch.bind(app), port, hostname: "127.0.0.1" });
        server.once("listening", resolve);
        server.once("error", reject);
      });
      return { port };
    },
    async stop() {
      await new Promise((resolve) => (server ? server.close(() => resolve()) : resolve()));
      server = null;
    },
    isRunning() {
      return server !== null;
    },
  };
}

// the card's description is the agent's purpose (the A2AServer's own description is not used for it)
const agent = new Agent({
  id: "echo", name: "echo", purpose: "Echoes the user's text.", instructions: "Echo the user's text.", model,
});
const a2a = new A2AServer({ id: "echo", name: "echo", version: "1.0.0", description: "Echoes the user's text." });
new VoltAgent({ agents: { echo: agent }, a2aServers: { echo: a2a }, server: loopbackServer });
