-- wrk -s increment.lua http://127.0.0.1:PORT -- PREFIX COUNT
-- POST {"by":1} to /v1/profiles/PREFIX1 .. PREFIXCOUNT/counter/increment, round robin over the
-- profiles (one wrk thread: the requests spread evenly). Prints bench/lua/result.lua's RESULT
-- line, then one "ACKED profile n" line per profile: the 2xx answers, counted by the profile
-- named in the answer's body, so the check after the run can compare each counter with the
-- increments acknowledged for it, whichever instance behind nginx answered.
package.path = debug.getinfo(1, "S").source:match("^@(.*/)") .. "../lua/?.lua;" .. package.path
require "result"

local threads = {}
function setup(thread) table.insert(threads, thread) end

function init(args)
  local prefix, count = args[1] or "bench", tonumber(args[2] or "1")
  reqs = {}
  for i = 1, count do
    reqs[i] = wrk.format("POST", "/v1/profiles/" .. prefix .. i .. "/counter/increment",
                             { ["Content-Type"] = "application/json" }, '{"by":1}')
  end
  next_index = 0
  acked = {}
end

function request()
  next_index = next_index % #reqs + 1
  return reqs[next_index]
end

function response(status, headers, body)
  if status >= 200 and status < 300 then
    local profile = body:match('"profile":"([^"]+)"') or "?"
    acked[profile] = (acked[profile] or 0) + 1
  end
end

function done(summary, latency, requests)
  report(summary, latency)
  local total = {}
  for _, thread in ipairs(threads) do
    for profile, n in pairs(thread:get("acked") or {}) do total[profile] = (total[profile] or 0) + n end
  end
  for profile, n in pairs(total) do io.write(string.format("ACKED %s %d\n", profile, n)) end
end
