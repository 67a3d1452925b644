import Foundation
import HTTPTestClient
import NavPrefsHTTPAPI
import NavPrefsApp
import Testing

/// What operators rely on: liveness, readiness, and metrics in Prometheus' text format.
@Suite("Operations: health, readiness, metrics")
struct OperationsAPITests {
    @Test("/readyz answers 200 while the store answers, and 503 problem+json once shutdown has begun; /healthz stays 200")
    func readiness() async throws {
        try await withApp { app in
            var response = try await app.request("GET", "/readyz")
            #expect(response.status == 200)
            #expect(response.text == #"{"status":"ready"}"# + "\n")
            app.app.api.beginShutdown()
            response = try await app.request("GET", "/readyz")
            #expect(response.status == 503)
            #expect(response.header("Content-Type") == "application/problem+json")
            #expect(response.header("Retry-After") == "1")
            #expect(try response.problemType() == problem("shutting-down"))
            #expect(try await app.request("GET", "/healthz").status == 200)
        }
    }

    @Test("/metrics counts requests by route template, method and status, with a latency histogram")
    func requestMetrics() async throws {
        try await withApp { app in
            _ = try await app.request("POST", "/v1/profiles/m1/counter/increment")
            _ = try await app.request("POST", "/v1/profiles/m2/counter/increment")
            _ = try await app.request("GET", "/v1/profiles/m1/counter")
            _ = try await app.request("GET", "/v1/profiles/nobody/preferences/nothing")
            let response = try await app.request("GET", "/metrics")
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
            let samples = Self.samples(response.text)
            let increment = "route=\"/v1/profiles/{profile}/counter/increment\""
            #expect(samples["navprefs_http_requests_total{\(increment),method=\"POST\",status=\"200\"}"] == 2)
            #expect(samples["navprefs_http_requests_total{route=\"/v1/profiles/{profile}/counter\",method=\"GET\",status=\"200\"}"] == 1)
            #expect(samples["navprefs_http_requests_total{route=\"/v1/profiles/{profile}/preferences/{key}\",method=\"GET\",status=\"404\"}"] == 1)
            #expect(samples["navprefs_http_request_duration_seconds_count{\(increment)}"] == 2)
            #expect(samples["navprefs_http_request_duration_seconds_bucket{\(increment),le=\"+Inf\"}"] == 2)
            let buckets = samples.filter { $0.key.hasPrefix("navprefs_http_request_duration_seconds_bucket{\(increment)") }
            #expect(buckets.count == 14, "13 bounds and +Inf")
            // The scrape is in flight while it renders (it reads per-profile storage), and left out:
            // an idle server reads 0, not 1.
            #expect(samples["navprefs_http_requests_in_flight"] == 0)
            #expect(samples["navprefs_sse_subscribers"] == 0)
            #expect(samples["navprefs_store_errors_total{kind=\"unavailable\"}"] == 0)
            #expect((samples["process_resident_memory_bytes"] ?? 0) > 1_000_000)
            #expect((samples["process_open_fds"] ?? 0) > 3)
            let started = samples["process_start_time_seconds"] ?? 0
            #expect(abs(started - Date().timeIntervalSince1970) < 600)
            #expect(samples.keys.contains { $0.hasPrefix("navprefs_build_info{version=") })
        }
    }

    @Test("/metrics shows open event streams and the events sent to them", .overSockets("event streams over TCP (SSEClient)"))
    func streamMetrics() async throws {
        try await withApp { app in
            let client = try await SSEClient.open(port: app.port, path: "/v1/profiles/sse/events")
            _ = try await client.next()  // the retry hint
            _ = try await client.next()  // the position: the stream is live
            _ = try await app.request("POST", "/v1/profiles/sse/counter/increment")
            let event = try await client.next()
            #expect(event?.event == "counter")
            let samples = Self.samples(try await app.request("GET", "/metrics").text)
            #expect(samples["navprefs_sse_subscribers"] == 1)
            #expect(samples["navprefs_sse_events_sent_total"] == 1)
        }
    }

    /// Sample lines (`name{labels} value`) by name and labels; comments left out.
    static func samples(_ text: String) -> [String: Double] {
        var samples: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            samples[String(line[..<space])] = value
        }
        return samples
    }
}
