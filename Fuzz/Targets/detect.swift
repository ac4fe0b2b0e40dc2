import Foundation
import ReceiptCore

/// Format detection: `ReceiptDecoder.decode` over arbitrary bytes (DER, base64, JSON, JWS,
/// plist), `artefactBytes`, then the tree, report and verification of whatever decoded.
enum FuzzTarget {
    static func run(_ bytes: [UInt8]) {
        // Errors are the expected answer to most fuzz input; only a crash is a finding.
        _ = try? ReceiptDecoder.artefactBytes(bytes)
        guard let artefact = try? ReceiptDecoder.decode(bytes) else { return }
        FuzzExercise.artefact(artefact)
    }

    static func seeds() throws -> [[UInt8]] {
        try FuzzSeeds.unified().map { Array(Base64Seed.encode($0).utf8) } + FuzzSeeds.legacy() + FuzzSeeds.jws()
    }
}

enum Base64Seed {
    static func encode(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString(options: .lineLength76Characters) }
}

