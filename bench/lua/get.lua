-- wrk -s get.lua http://127.0.0.1:PORT/v1/profiles/bench/counter
-- Plain keep-alive GETs; prints one RESULT line (see result.lua).
package.path = debug.getinfo(1, "S").source:match("^@(.*/)") .. "?.lua;" .. package.path
require "result"

done = function(summary, latency, requests) report(summary, latency) end
