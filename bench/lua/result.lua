-- Shared by get.lua and post.lua: one machine-readable line when wrk finishes.
-- RESULT requests=N duration_us=N rps=X p50_us=N p99_us=N errors=N non2xx=N
-- errors = connect + read + write + timeout errors; non2xx = responses outside 200-399.
function report(summary, latency)
  local e = summary.errors
  local seconds = summary.duration / 1e6
  io.write(string.format(
    "RESULT requests=%d duration_us=%d rps=%.1f p50_us=%d p99_us=%d errors=%d non2xx=%d\n",
    summary.requests, summary.duration, summary.requests / seconds,
    latency:percentile(50), latency:percentile(99),
    e.connect + e.read + e.write + e.timeout, e.status))
end
