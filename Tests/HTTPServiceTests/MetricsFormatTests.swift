import Foundation
import HTTPService
import Testing

extension HTTPServiceTests {
    /// The registry's text against the exposition format's rules: exact output for a small
    /// registry, and a checker that reads any rendering line by line.
    @Suite("Prometheus text format")
    struct MetricsFormatTests {
        @Test("a counter with labels, a gauge and a histogram render exactly as the format writes them")
        func exactText() throws {
            let metrics = Metrics()
            let requests = try metrics.counter("http_requests_total", help: "Requests over.", labels: ["route", "status"])
            let open = try metrics.gauge("connections_open", help: "Open connections.")
            let duration = try metrics.histogram("duration_seconds", help: "Durations.", labels: ["route"], buckets: [0.1, 1, 2.5])
            requests.increment(["purchase", "200"])
            requests.increment(["purchase", "200"], by: 2)
            requests.increment(["notifications", "500"])
            requests.increment(["purchase", "200"], by: -5)
            open.set(7)
            open.add(-2)
            for value in [0.05, 0.1, 0.7, 3] { duration.observe(value, ["purchase"]) }
            #expect(metrics.render() == """
                # HELP http_requests_total Requests over.
                # TYPE http_requests_total counter
                http_requests_total{route="notifications",status="500"} 1
                http_requests_total{route="purchase",status="200"} 3
                # HELP connections_open Open connections.
                # TYPE connections_open gauge
                connections_open 5
                # HELP duration_seconds Durations.
                # TYPE duration_seconds histogram
                duration_seconds_bucket{route="purchase",le="0.1"} 2
                duration_seconds_bucket{route="purchase",le="1"} 3
                duration_seconds_bucket{route="purchase",le="2.5"} 3
                duration_seconds_bucket{route="purchase",le="+Inf"} 4
                duration_seconds_sum{route="purchase"} 3.85
                duration_seconds_count{route="purchase"} 4

                """)
        }

        @Test("label values escape backslash, quote and line feed; help escapes backslash and line feed only")
        func escaping() throws {
            let metrics = Metrics()
            let counter = try metrics.counter("escaped_total", help: "A \"quoted\" help\\path\nsecond line", labels: ["value"])
            counter.increment(["a\\b \"c\"\nd"])
            let lines = metrics.render().split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines[0] == #"# HELP escaped_total A "quoted" help\\path\nsecond line"#)
            #expect(lines[2] == #"escaped_total{value="a\\b \"c\"\nd"} 1"#)
            #expect(try PrometheusChecker.check(metrics.render()) == 1)
        }

        @Test("numbers: integers without a fraction, the shortest decimal otherwise, +Inf, -Inf and NaN")
        func numbers() throws {
            let metrics = Metrics()
            try metrics.gauge("a", help: "a") { 3 }
            try metrics.gauge("b", help: "b") { 0.25 }
            try metrics.gauge("c", help: "c") { .infinity }
            try metrics.gauge("d", help: "d") { -.infinity }
            try metrics.gauge("e", help: "e") { .nan }
            try metrics.gauge("f", help: "f") { 1e-7 }
            let samples = metrics.render().split(separator: "\n").filter { !$0.hasPrefix("#") }
            #expect(samples == ["a 3", "b 0.25", "c +Inf", "d -Inf", "e NaN", "f 1e-07"])
        }

        @Test("names against the rules: bad metric or label names, a reserved le, a repeated label, clashing names and unordered buckets are refused",
              arguments: [
                  { (m: Metrics) in _ = try m.counter("1starts_with_digit", help: "") },
                  { (m: Metrics) in _ = try m.counter("has-dash", help: "") },
                  { (m: Metrics) in _ = try m.counter("ok", help: "", labels: ["bad-label"]) },
                  { (m: Metrics) in _ = try m.counter("ok", help: "", labels: ["__reserved"]) },
                  { (m: Metrics) in _ = try m.counter("ok", help: "", labels: ["a", "a"]) },
                  { (m: Metrics) in _ = try m.histogram("ok", help: "", labels: ["le"]) },
                  { (m: Metrics) in _ = try m.histogram("ok", help: "", buckets: [1, 1]) },
                  { (m: Metrics) in _ = try m.histogram("ok", help: "", buckets: [2, 1]) },
                  { (m: Metrics) in _ = try m.histogram("ok", help: "", buckets: [1, .infinity]) },
                  { (m: Metrics) in _ = try m.histogram("ok", help: "", buckets: []) },
                  { (m: Metrics) in _ = try m.counter("twice", help: ""); _ = try m.gauge("twice", help: "") },
                  { (m: Metrics) in _ = try m.histogram("h", help: ""); _ = try m.counter("h_count", help: "") },
              ] as [@Sendable (Metrics) throws -> Void])
        func refusedNames(register: @Sendable (Metrics) throws -> Void) {
            #expect(throws: HTTPServiceError(.invalidMetric, "")) { try register(Metrics()) }
        }

        @Test("HTTPMetrics over a real server renders text the checker accepts: counts per route, method and status; in-flight gauge; cumulative buckets")
        func httpMetrics() throws {
            let metrics = Metrics()
            let http = try HTTPMetrics(registry: metrics)
            let server = try HTTPServer(configuration: .init(limits: .init(maxBodyBytes: 10), observe: http.record)) { request in
                request.path == "/metrics" ? .text(200, metrics.render(), route: "metrics") : .error(404, "no route", route: nil)
            }
            try server.start()
            defer { server.stop() }
            try http.watch(server)
            for text in [Harness.get("/x"), Harness.get("/y"), "BREW /pot HTTP/1.1\r\nHost: x\r\n\r\n",
                         "POST /z HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\n"] {
                let client = try RawClient(port: server.port)
                client.send(text)
                _ = client.readResponse()
            }
            #expect(Harness.settle(server))
            let client = try RawClient(port: server.port)
            client.send(Harness.get("/metrics"))
            let text = String(decoding: try #require(client.readResponse()).body, as: UTF8.self)
            #expect(try PrometheusChecker.check(text) > 10)
            #expect(text.contains(#"receiptdesk_http_requests_total{route="unmatched",method="GET",status="404"} 2"#))
            #expect(text.contains(#"receiptdesk_http_requests_total{route="unmatched",method="other",status="404"} 1"#))
            #expect(text.contains(#"receiptdesk_http_requests_total{route="refused",method="POST",status="413"} 1"#))
            #expect(text.contains("receiptdesk_http_requests_in_flight 1\n"), "the /metrics request itself is in flight")
            #expect(text.contains(#"receiptdesk_http_request_duration_seconds_count{route="unmatched"} 3"#))
        }
    }
}
