-- wrk script for scripts/bench.py. Environment:
--   BENCH_BODY  a POST body; each "{{ID}}" in it becomes a fresh id per request (unset: GET)
--   BENCH_RUN   a prefix that makes the ids unique across runs
-- A POST's response counts as failed when its status is not 2xx or its body holds a JSON-RPC "error".
-- done() prints one line "BENCH_JSON {...}" with counts and latency percentiles in microseconds.
local template = os.getenv("BENCH_BODY")
local run = os.getenv("BENCH_RUN") or "run"
local threads = {}
ident, counter, failures = 0, 0, 0

function setup(thread)
  table.insert(threads, thread)
  thread:set("ident", #threads)
end

if template then
  wrk.method = "POST"
  wrk.body = template
  if template:find("{{ID}}", 1, true) then
    function request()
      counter = counter + 1
      local body = template:gsub("{{ID}}", run .. "-" .. ident .. "-" .. counter)
      return wrk.format(nil, nil, nil, body)
    end
  end

  function response(status, headers, body)
    if status < 200 or status > 299 or (body and body:find('"error"', 1, true)) then
      failures = failures + 1
    end
  end
end

function done(summary, latency, requests)
  local failed = 0
  for _, thread in ipairs(threads) do
    failed = failed + (thread:get("failures") or 0)
  end
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests":%d,"duration_us":%d,"socket_errors":%d,"status_errors":%d,"failures":%d,' ..
    '"p50_us":%d,"p90_us":%d,"p99_us":%d,"max_us":%d,"mean_us":%.1f}\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout, e.status, failed,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean))
end
