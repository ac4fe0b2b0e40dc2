import Foundation
import PurchaseStore
import Testing

/// The backends the console tests run on: SQLite always, PostgreSQL when `make test` (or you)
/// set `RECEIPTDESK_TEST_POSTGRES_URL` to a server the tests may create schemas on.
enum ConsoleBackend: String, CustomStringConvertible, Sendable {
    case sqlite, postgres

    var description: String { rawValue }

    static let postgresURL: String? = ProcessInfo.processInfo.environment["RECEIPTDESK_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    static var available: [ConsoleBackend] { postgresURL == nil ? [.sqlite] : [.sqlite, .postgres] }
}

/// A fresh, empty database for one test: a temporary SQLite file, or a new schema on the test
/// server (dropped afterwards).
final class ConsoleScratch {
    let backend: ConsoleBackend
    /// The SQLite path or the PostgreSQL URL (working in the schema), as `PurchaseDatabase.open` takes it.
    let location: String
    let directory: URL
    private let schema: String?

    init(_ backend: ConsoleBackend) throws {
        self.backend = backend
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("console-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        switch backend {
        case .sqlite:
            schema = nil
            location = directory.appendingPathComponent("purchases.sqlite").path
        case .postgres:
            guard let base = ConsoleBackend.postgresURL else {
                throw StoreError(.cannotOpen, "RECEIPTDESK_TEST_POSTGRES_URL is unset: no PostgreSQL server for the console tests")
            }
            let name = "rdconsole_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            try PostgresDatabase(url: base).execute("CREATE SCHEMA \(name)", [])
            schema = name
            location = base + (base.contains("?") ? "&" : "?") + "options=-csearch_path%3D\(name)"
        }
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)  // best effort: a leftover temp folder is harmless
        if let schema, let base = ConsoleBackend.postgresURL {
            _ = try? PostgresDatabase(url: base).execute("DROP SCHEMA \(schema) CASCADE", [])  // best effort: the server is thrown away
        }
    }
}
