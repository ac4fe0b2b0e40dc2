import ReceiptCore

/// The unified (iOS 7+) receipt decoder: `AppReceipt(derEncoded:)`, then the tree, report and
/// verification of whatever decoded.
enum FuzzTarget {
    static func run(_ bytes: [UInt8]) {
        // Errors are the expected answer to most fuzz input; only a crash is a finding.
        guard let receipt = try? AppReceipt(derEncoded: bytes) else { return }
        _ = receipt.matchesDevice([UInt8](repeating: 0, count: 16))
        FuzzExercise.artefact(.unified(receipt))
    }

    static func seeds() throws -> [[UInt8]] { try FuzzSeeds.unified() }
}
