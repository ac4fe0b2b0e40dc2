@testable import ConsoleUI
import Foundation
import PurchaseStore
import ReceiptCore
import Testing

/// The grant form's confirmation shows the end exactly as the ledger will store it, and refuses
/// an end past the latest storable date with the ledger's own line.
@Suite("Grant preview: far ends")
struct GrantPreviewTests {
    @Test func anEndPastYear9999IsRefusedBeforeAnythingIsShown() throws {
        let f = try ConsoleFixture()
        let duration = try #require(ISODuration("P99999Y"))
        #expect(throws: ConsoleFailure.self) {
            _ = try ChangePreview.confirmation(.grant(customer: "alice", entitlement: "pro", end: .duration(duration), reason: "r"),
                                               ledger: f.ledger, operatorName: "mei", now: ConsoleFixture.now)
        }
        do {
            _ = try ChangePreview.confirmation(.grant(customer: "alice", entitlement: "pro", end: .duration(duration), reason: "r"),
                                               ledger: f.ledger, operatorName: "mei", now: ConsoleFixture.now)
        } catch let failure as ConsoleFailure {
            #expect(failure.message.contains("the latest date receiptdesk stores"), "\(failure.message)")
        }
    }

    @Test func theConfirmedEndIsTheStoredOne() throws {
        let f = try ConsoleFixture()
        let now = ConsoleFixture.now.addingTimeInterval(0.000_7)  // a clock between two milliseconds
        let confirmation = try ChangePreview.confirmation(
            .grant(customer: "bob", entitlement: "pro", end: .date(now.addingTimeInterval(86_400.000_9)), reason: "r"),
            ledger: f.ledger, operatorName: "mei", now: now)
        guard case .grant(_, _, .date(let end), _) = confirmation.change else { Issue.record("not a grant"); return }
        #expect(end == RFC3339.truncatedToMilliseconds(end))
        #expect(RFC3339.format(end) == "2025-06-02T12:00:00.001Z")
    }
}
