import ReceiptCore

/// The OpenStep plist parser and the legacy (iOS 6) receipt decoder: the plist alone, the receipt
/// from plist bytes and from base64 text, then the tree, report and verification.
enum FuzzTarget {
    static func run(_ bytes: [UInt8]) {
        // Errors are the expected answer to most fuzz input; only a crash is a finding.
        _ = try? PlistValue(openStep: bytes)
        if let receipt = try? LegacyReceipt(plistBytes: bytes) {
            _ = receipt.purchaseInfoValue("transaction-id")
            FuzzExercise.artefact(.legacy(receipt))
        }
        if let text = String(validating: bytes, as: UTF8.self), let receipt = try? LegacyReceipt(base64: text) {
            FuzzExercise.artefact(.legacy(receipt))
        }
    }

    static func seeds() throws -> [[UInt8]] { try FuzzSeeds.legacy() }
}
