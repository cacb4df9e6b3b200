-- wrk script for bench/webhook.sh: POSTs realistic AdmissionReviews (RecurringJob, Volume and
-- Schedule creates, in rotation) over keep-alive TLS connections.
--   wrk ... -s bench/webhook.lua -- BODY_DIR
-- done() prints one machine-readable line: "RESULT requests=… rps=… p50_us=… …".

local bodies = {}
local n = 0

function init(args)
  local dir = args[1] or "bench/webhook"
  for _, name in ipairs({ "recurringjob", "volume", "schedule" }) do
    local f = assert(io.open(dir .. "/" .. name .. ".json", "rb"))
    local body = f:read("*a"):gsub("%s+$", "")
    f:close()
    bodies[#bodies + 1] = wrk.format("POST", "/mutate?timeout=10s",
      { ["Content-Type"] = "application/json" }, body)
  end
  n = math.random(#bodies) - 1
end

function request()
  n = n % #bodies + 1
  return bodies[n]
end

function done(summary, latency, requests)
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write +
      summary.errors.status + summary.errors.timeout
  io.write(string.format(
    "RESULT requests=%d seconds=%.3f rps=%.0f p50_us=%d p99_us=%d p999_us=%d max_us=%d errors=%d\n",
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
    latency:percentile(50), latency:percentile(99), latency:percentile(99.9), latency.max, errors))
end
