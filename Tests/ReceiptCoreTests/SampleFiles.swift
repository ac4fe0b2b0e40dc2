import Foundation
import ReceiptCore

/// Reads the sample artefacts in Assets/Samples (copies of public Apple test data).
enum SampleFiles {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Assets/Samples")

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    static func text(_ name: String) throws -> String {
        String(decoding: try bytes(name), as: UTF8.self)
    }

    /// The DER of a base64 sample.
    static func der(_ name: String) throws -> [UInt8] {
        try Base64.decode(try text(name), name)
    }

    static func date(_ text: String) -> Date {
        RFC3339.parse(text) ?? .distantPast
    }

    static func ms(_ value: Double) -> Date { Date(timeIntervalSince1970: value / 1000) }

    static let apple: TrustStore = {
        // The bundled certificates are checked by BundledCertificatesTests; failing here is a test bug.
        guard let store = try? TrustStore.apple() else { preconditionFailure("bundled trust store unreadable") }
        return store
    }()
}
