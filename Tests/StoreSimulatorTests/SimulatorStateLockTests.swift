import Dispatch
import Foundation
import ReceiptCore
import StoreSimulator
import Testing

/// Several `SimulatorState`s over one state directory, as several processes have (flock(2)
/// treats each opened lock file alike, in one process or in many): each change starts from what
/// the others saved, so transaction ids stay distinct and no change is written over.
@Suite("Simulator state directory shared by several states")
struct SimulatorStateLockTests {
    /// A state directory holding the shared test authority (no key generation) and no records yet.
    static func directory() throws -> URL {
        let directory = try SimulatorPersistenceTests.temporaryDirectory()
        try TestCertificateAuthority.shared().save(to: directory.appendingPathComponent(SimulatorStateDirectory.authorityFolder))
        return directory
    }

    static func open(_ directory: URL) throws -> SimulatorState {
        try SimulatorStateDirectory.open(directory, bundleId: SimulatorFixture.bundleId, appAppleId: 987_654_321)
    }

    /// Mints a consumable as one change of `state`; the new transaction's id.
    static func mint(_ state: SimulatorState) throws -> String {
        let purchase = SimulatedPurchase(productId: "coins.100", type: .consumable, purchaseDate: SimulatorFixture.day(-1))
        return try state.change {
            try state.mintSignedTransaction(environment: .sandbox, purchase: purchase, signedDate: SimulatorFixture.now)
        }.transaction.transactionId
    }

    @Test("two states opened from one directory, minting in turn, issue different ids and keep each other's transactions")
    func mintInTurn() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }  // clean-up only
        let first = try Self.open(directory)
        let second = try Self.open(directory)
        var ids: [String] = []
        for _ in 0..<10 {
            ids.append(try Self.mint(first))
            ids.append(try Self.mint(second))
        }
        #expect(Set(ids).count == 20, "\(ids)")
        #expect(Set(try Self.open(directory).transactions.map(\.transactionId)) == Set(ids))
        // Each state caught up with the other's mints before its own.
        #expect(first.transactions.count == 19 && second.transactions.count == 20)
    }

    @Test("threads minting at once through two states over one directory get different ids, all saved")
    func mintAtOnce() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }  // clean-up only
        let states = [try Self.open(directory), try Self.open(directory)]
        final class Results: @unchecked Sendable {
            let lock = NSLock()
            var ids: [String] = []
            var failures: [String] = []
        }
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: 24) { index in
            do {
                let id = try Self.mint(states[index % 2])
                results.lock.withLock { results.ids.append(id) }
            } catch {
                results.lock.withLock { results.failures.append("\(error)") }
            }
        }
        #expect(results.failures.isEmpty, "\(results.failures)")
        #expect(results.ids.count == 24 && Set(results.ids).count == 24, "\(results.ids.sorted())")
        #expect(Set(try Self.open(directory).transactions.map(\.transactionId)) == Set(results.ids))
    }

    @Test("a running server answers a read with what another state over its directory minted since")
    func serverReadsOtherMints() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }  // clean-up only
        let fixture = try SimulatorFixture()  // for its API key and tokens
        let served = try Self.open(directory)
        served.serverAPIKey = ServerAPIKey(publicKey: try fixture.apiKey.publicKey(), keyId: SimulatorFixture.keyId,
                                           issuerId: SimulatorFixture.issuerId)
        let fixed = SimulatorFixture.now
        let server = try AppStoreSimulator(state: served, clock: { fixed })
        try server.start()
        defer { server.stop() }
        let minter = try Self.open(directory)
        for _ in 0..<3 {
            let id = try Self.mint(minter)
            let response = try #require(try exchange(port: server.port, path: "/sandbox/inApps/v1/transactions/\(id)",
                                                     headers: [("Authorization", "Bearer \(try fixture.token())")]))
            #expect(response.status == 200, "\(id): \(response.status)")
        }
    }

    @Test("two simulator servers over one directory extending subscriptions in turn, a third state minting between: every change survives")
    func serversExtendInTurn() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }  // clean-up only
        let fixture = try SimulatorFixture()  // for its API key and tokens
        let minter = try Self.open(directory)
        let subscriptions = try minter.change {
            try (0..<4).map { _ in try minter.register(SimulatorFixture.monthly(SimulatorFixture.day(-10)), environment: .sandbox).transactionId }
        }
        var servers: [AppStoreSimulator] = []
        for _ in 0..<2 {
            let state = try Self.open(directory)
            state.serverAPIKey = ServerAPIKey(publicKey: try fixture.apiKey.publicKey(), keyId: SimulatorFixture.keyId,
                                              issuerId: SimulatorFixture.issuerId)
            let fixed = SimulatorFixture.now
            let server = try AppStoreSimulator(state: state, clock: { fixed })
            try server.start()
            servers.append(server)
        }
        defer { for server in servers { server.stop() } }
        // Each subscription is extended once through each server (Apple allows two a year), the
        // servers taking turns, and between two extensions the third state mints.
        let steps = [(0, 0), (1, 1), (0, 2), (1, 3), (0, 1), (1, 0), (0, 3), (1, 2)]
        var minted: [String] = []
        for (server, subscription) in steps {
            let body = "{\"extendByDays\":5,\"extendReasonCode\":0,\"requestIdentifier\":\"\(UUID().uuidString)\"}"
            let response = try #require(try exchange(
                port: servers[server].port, method: "PUT", path: "/sandbox/inApps/v1/subscriptions/extend/\(subscriptions[subscription])",
                headers: [("Authorization", "Bearer \(try fixture.token())")], body: Array(body.utf8)))
            #expect(response.status == 200, "server \(server), subscription \(subscription): \(response.status)")
            minted.append(try Self.mint(minter))
        }
        let reopened = try Self.open(directory)
        for id in subscriptions {
            #expect(reopened.extensions(originalTransactionId: id).count == 2, "\(id)")
            #expect(reopened.transaction(id)?.expiresDate == SimulatorFixture.day(30), "\(id)")
        }
        #expect(reopened.notifications.filter { $0.notificationType == "RENEWAL_EXTENDED" }.count == 8)
        #expect(Set(minted).count == 8 && Set(minted).isDisjoint(with: subscriptions))
        #expect(Set(minted).isSubset(of: Set(reopened.transactions.map(\.transactionId))))
    }
}
