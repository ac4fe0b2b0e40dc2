import ReceiptCore

/// The verifyReceipt response decoder (Apple's JSON answer), then the tree, report and verification.
enum FuzzTarget {
    static func run(_ bytes: [UInt8]) {
        // Errors are the expected answer to most fuzz input; only a crash is a finding.
        guard let response = try? VerifyReceiptResponse(json: bytes) else { return }
        FuzzExercise.artefact(.verifyReceiptResponse(response))
    }

    static func seeds() throws -> [[UInt8]] { [] }
}
