import Foundation
@testable import PurchaseStore
import Testing

/// A refresh writes a row when it differs from the stored one in anything: every column of
/// `EntitlementRow.selectColumns` takes part in the comparison.
@Suite("Entitlement row comparison")
struct EntitlementRowEqualityTests {
    static let values: [SQLValue] = [.text("pro"), .text("purchase"), .text("1001"), .null, .text("2025-05-01T00:00:00.000Z"),
                                     .text("2025-06-01T00:00:00.000Z"), .null, .integer(1), .integer(0), .null,
                                     .text("pro via transaction 1001"), .text("sandbox")]
    static let changed: [SQLValue] = [.text("plus"), .text("grant"), .text("1002"), .integer(7), .text("2025-05-02T00:00:00.000Z"),
                                      .null, .integer(5), .integer(0), .integer(1), .text("mei"),
                                      .text("pro via transaction 1002"), .text("")]

    static func row(_ values: [SQLValue]) -> EntitlementRow {
        let columns = EntitlementRow.selectColumns.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        return EntitlementRow(SQLRowColumns(row: SQLRow(columns: columns, values: values)))
    }

    @Test func rowsAreEqualExactlyWhenEveryColumnIs() {
        let base = Self.row(Self.values)
        #expect(base == Self.row(Self.values), "two rows read from the same values")
        for index in Self.values.indices {
            var values = Self.values
            values[index] = Self.changed[index]
            #expect(Self.row(values) != base, "column \(index + 1) of selectColumns changed unseen")
        }
    }
}
