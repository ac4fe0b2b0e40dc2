import ReceiptCore

/// The JWS decoders: compact JWS, signed transaction, renewal info and server notification (as a
/// compact JWS and as the `{"signedPayload": …}` body), then the tree, report and verification.
enum FuzzTarget {
    static func run(_ bytes: [UInt8]) {
        guard let text = String(validating: bytes, as: UTF8.self) else { return }
        // Errors are the expected answer to most fuzz input; only a crash is a finding.
        if let jws = try? CompactJWS(compact: text) {
            _ = try? jws.certificate(at: 0)
            _ = try? jws.certificate(at: 2)
            _ = try? jws.payloadObject("payload")
        }
        if let transaction = try? SignedTransaction(compactJWS: text) { FuzzExercise.artefact(.transaction(transaction)) }
        if let renewal = try? RenewalInfo(compactJWS: text) { FuzzExercise.artefact(.renewalInfo(renewal)) }
        if let notification = try? ServerNotification(compactJWS: text) { FuzzExercise.artefact(.notification(notification)) }
        if text.hasPrefix("{"), let artefact = try? ReceiptDecoder.decode(bytes) { FuzzExercise.artefact(artefact) }
    }

    static func seeds() throws -> [[UInt8]] { try FuzzSeeds.jws() }
}
