-- wrk -s post.lua http://127.0.0.1:PORT/v1/profiles/bench/counter/increment
-- Keep-alive POSTs of {"by":1} as application/json; prints one RESULT line (see result.lua).
package.path = debug.getinfo(1, "S").source:match("^@(.*/)") .. "?.lua;" .. package.path
require "result"

wrk.method = "POST"
wrk.body = '{"by":1}'
wrk.headers["Content-Type"] = "application/json"

done = function(summary, latency, requests) report(summary, latency) end
