import Foundation
import PurchaseStore

/// Fresh databases for the backend benchmark: files in a temporary folder, schemas on the server.
final class BenchScratch {
    let folder: URL
    let postgresURL: String
    private var schemas: [String] = []

    init(postgresURL: String) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("receiptdesk-bench-backends-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        self.postgresURL = postgresURL
    }

    func newDatabase(_ backend: String) throws -> String {
        let name = "receiptdesk_bench_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        guard backend == "postgresql" else { return folder.appendingPathComponent("\(name).sqlite").path }
        try PostgresDatabase(url: postgresURL).execute("CREATE SCHEMA \(name)", [])
        schemas.append(name)
        return postgresURL + (postgresURL.contains("?") ? "&" : "?") + "options=-csearch_path%3D\(name)"
    }

    func remove() {
        try? FileManager.default.removeItem(at: folder)  // best effort: a leftover temp folder is harmless
        guard !schemas.isEmpty, let server = try? PostgresDatabase(url: postgresURL) else { return }  // best effort, as above
        for schema in schemas { _ = try? server.execute("DROP SCHEMA \(schema) CASCADE", []) }  // best effort, as above
    }
}
