-- wrk -s get-spread.lua http://127.0.0.1:PORT -- PREFIX COUNT
-- GET /v1/profiles/PREFIX1 .. PREFIXCOUNT/counter, round robin: reads spread over profiles,
-- as many users reading their own. Prints bench/lua/result.lua's RESULT line.
package.path = debug.getinfo(1, "S").source:match("^@(.*/)") .. "../lua/?.lua;" .. package.path
require "result"

function init(args)
  local prefix, count = args[1] or "bench", tonumber(args[2] or "1")
  reqs = {}
  for i = 1, count do reqs[i] = wrk.format("GET", "/v1/profiles/" .. prefix .. i .. "/counter") end
  next_index = 0
end

function request()
  next_index = next_index % #reqs + 1
  return reqs[next_index]
end

function done(summary, latency, requests) report(summary, latency) end
