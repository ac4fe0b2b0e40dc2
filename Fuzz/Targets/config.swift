import ReceiptCore

/// The config loader: `StoreConfiguration(json:source:)` over arbitrary bytes.
enum FuzzTarget {
    static func run(_ bytes: [UInt8]) {
        // Errors are the expected answer to most fuzz input; only a crash is a finding.
        guard let configuration = try? StoreConfiguration(json: bytes, source: "fuzz.json") else { return }
        _ = configuration.products.count
    }

    static func seeds() throws -> [[UInt8]] { [] }
}
