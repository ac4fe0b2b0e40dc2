import Foundation
import ReceiptCore
import StoreSimulator
import Testing

/// Finish Transaction (`POST /inApps/v1/transactions/{transactionId}/finish`) over loopback.
@Suite("Simulator Finish Transaction")
struct FinishTransactionEndpointTests {
    static func path(_ id: String) -> String { "/inApps/v1/transactions/\(id)/finish" }

    @Test("200 with no body; recorded with its date; a repeat is 200 again, keeps the first date and counts; saved and loaded")
    func finishedOnceAndIdempotent() throws {
        let fixture = try SimulatorFixture()
        let coins = try fixture.state.register(SimulatedPurchase(productId: "coins", type: .consumable, purchaseDate: SimulatorFixture.day(-1)),
                                               environment: .sandbox)
        #expect(fixture.state.finish(transactionId: coins.transactionId) == nil, "nobody finished it yet")
        let first = try fixture.send("POST", .sandbox, Self.path(coins.transactionId))
        #expect(first.status == 200 && first.body.isEmpty)
        let kept = try #require(fixture.state.finish(transactionId: coins.transactionId))
        #expect(kept == TransactionFinish(transactionId: coins.transactionId, environment: .sandbox, finishedDate: SimulatorFixture.now,
                                          requests: 1, lastRequestDate: SimulatorFixture.now))
        // A minute later, through a second simulator over the same state: Apple is idempotent.
        let later = SimulatorFixture.now.addingTimeInterval(60)
        let second = try AppStoreSimulator(state: fixture.state, clock: { later })
        try second.start()
        defer { second.stop() }
        let again = try #require(try exchange(port: second.port, method: "POST", path: "/sandbox" + Self.path(coins.transactionId),
                                              headers: [("Authorization", "Bearer \(try fixture.token())")]))
        #expect(again.status == 200 && again.body.isEmpty)
        let twice = try #require(fixture.state.finish(transactionId: coins.transactionId))
        #expect(twice.finishedDate == SimulatorFixture.now && twice.lastRequestDate == later && twice.requests == 2)
        // What the state saves, it loads.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("finish-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }  // clean-up only
        try fixture.state.save(to: file)
        let reloaded = SimulatorState(authority: fixture.state.authority, bundleId: SimulatorFixture.bundleId)
        try reloaded.load(from: file)
        #expect(reloaded.finish(transactionId: coins.transactionId) == twice)
    }

    @Test("unknown here 404 4040010 (also the other environment's), non-numeric 400 4000006, another method 405, nothing recorded")
    func refusals() throws {
        let fixture = try SimulatorFixture()
        let sub = try fixture.activeSubscription(.production)
        let unknown = try fixture.send("POST", .production, Self.path("9999999"))
        #expect(unknown.status == 404 && SimulatorFixture.errorCode(unknown) == 4040010)
        let elsewhere = try fixture.send("POST", .sandbox, Self.path(sub.transactionId))
        #expect(elsewhere.status == 404 && SimulatorFixture.errorCode(elsewhere) == 4040010)
        let malformed = try fixture.send("POST", .production, Self.path("12ab"))
        #expect(malformed.status == 400 && SimulatorFixture.errorCode(malformed) == 4000006)
        let get = try fixture.api(.production, Self.path(sub.transactionId))
        #expect(get.status == 405 && get.header("Allow") == "POST", "\(get.status) \(get.text)")
        #expect(fixture.state.finish(transactionId: sub.transactionId) == nil && fixture.state.finish(transactionId: "9999999") == nil)
        let done = try fixture.send("POST", .production, Self.path(sub.transactionId))
        #expect(done.status == 200 && fixture.state.finish(transactionId: sub.transactionId)?.environment == .production)
    }
}
