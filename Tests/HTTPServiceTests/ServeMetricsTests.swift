import Foundation
import HTTPService
import LiveService
import PurchaseStore
import ReceiptCore
import StoreSimulator
import Testing

/// `GET /metrics` of a serving ledger: valid Prometheus text that counts what the requests did
/// (requests by route and status, ledger outcomes, commit rounds, the writer's time).
@Suite(.serialized) struct ServeMetricsTests {
    @Test func metricsCountWhatTheRequestsDid() throws {
        let world = try LiveWorld()
        let state = SimulatorState(authority: world.authority, bundleId: "com.example.app")
        let bought = RFC3339.parse("2025-01-01T00:00:00Z") ?? Date()
        let purchase = SimulatedPurchase(productId: "com.example.pro.monthly", type: .autoRenewable, purchaseDate: bought,
                                         expiresDate: bought.addingTimeInterval(30 * 86_400))
        let receipt = try state.mintUnifiedReceipt(environment: .production, purchases: [purchase], account: "eva", originalAppVersion: "50")
        let original = try #require(receipt.transactions.first?.transactionId)
        _ = try world.inspector.importArtefact(Array(receipt.base64.utf8), customer: "eva", source: "test", operatorName: "mei")
        let renewal = try state.renewAndNotify(originalTransactionId: original, purchaseDate: bought.addingTimeInterval(30 * 86_400),
                                               expiresDate: bought.addingTimeInterval(60 * 86_400))

        let jws = try world.jws("2000000000000901")
        #expect(try world.purchase(["customer": "ada", "signedTransactions": [jws]])?.status == 200)
        #expect(try world.purchase(["customer": "ada", "signedTransactions": [jws]])?.status == 200)
        #expect(try world.notify(renewal.body)?.status == 200)
        #expect(try world.notify(renewal.body)?.status == 200)
        #expect(try world.notify("{\"signedPayload\": \"eyJhbGciOiJub25lIn0.e30.\"}")?.status ?? 0 >= 400)
        #expect(try world.send("GET", "/nowhere")?.status == 404)

        // An exchange is counted when libmicrohttpd reports it over, just after its last byte
        // went out (each on its connection's thread): the client may ask for /metrics before
        // that report. Read again until the exchanges checked below are counted; the ledger's
        // figures are recorded before any answer (`LedgerCommitQueue`), complete in every reading.
        let purchasesAnswered = "receiptdesk_http_requests_total{route=\"/v1/purchases\",method=\"POST\",status=\"200\"} 2"
        func allCounted(_ answer: RawResponse) -> Bool {
            let text = String(decoding: answer.body, as: UTF8.self)
            return text.contains(purchasesAnswered) && text.contains("status=\"404\"} 1")
        }
        var answer = try #require(try world.send("GET", "/metrics"))
        let deadline = Date().addingTimeInterval(30)
        while !allCounted(answer) && Date() < deadline {
            usleep(10_000)
            answer = try #require(try world.send("GET", "/metrics"))
        }
        #expect(answer.status == 200)
        let text = String(decoding: answer.body, as: UTF8.self)
        #expect(try PrometheusChecker.check(text) > 0)
        func value(_ series: String) -> Double? {
            text.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
        }
        #expect(value("receiptdesk_ledger_outcomes_total{outcome=\"new\"}") == 1, "\(text)")
        #expect(value("receiptdesk_ledger_outcomes_total{outcome=\"duplicate\"}") == 2, "a repeated purchase and a repeated notification")
        #expect(value("receiptdesk_ledger_outcomes_total{outcome=\"applied\"}") == 1)
        #expect(value("receiptdesk_ledger_outcomes_total{outcome=\"refused\"}") == 1)
        // Four requests reached the writer (the forged one was refused before it).
        #expect(value("receiptdesk_commit_round_requests_sum") == 4)
        #expect((value("receiptdesk_writer_busy_seconds_total") ?? 0) > 0)
        let cpu = try #require(value("receiptdesk_writer_cpu_seconds_total"))
        #expect(cpu > 0 && cpu <= (value("receiptdesk_writer_busy_seconds_total") ?? 0) + 0.01, "CPU is part of the busy time")
        #expect(value("receiptdesk_commit_queue_depth") == 0)
        #expect(text.contains(purchasesAnswered), "\(text)")
        #expect(text.contains("status=\"404\"} 1"))
    }
}
