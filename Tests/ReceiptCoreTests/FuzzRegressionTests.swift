import Foundation
import Testing
@testable import ReceiptCore

/// Inputs that once crashed a fuzz target (Fuzz/Targets), kept in Fuzz/Corpus/TARGET and replayed
/// here through the same calls the target makes, so each crash stays fixed without the fuzzer.
enum FuzzCorpus {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/Corpus")

    static func bytes(_ target: String, _ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(target).appendingPathComponent(name)))
    }
}

@Suite("Fuzz regressions: ReceiptCore")
struct ReceiptCoreFuzzRegressionTests {
    /// `unified` found it: a receipt whose embedded certificate has an empty TBSCertificate made
    /// the signer look-up read the tag one byte past the certificate (an index out of range trap).
    @Test("a certificate with an empty TBSCertificate is not the signer's, and verification says why")
    func emptyTBSCertificateInSignerLookUp() throws {
        let bytes = try FuzzCorpus.bytes("unified", "crash-c2ac181582d3b28411f042c63fc8bdc5dadb414e")
        let receipt = try AppReceipt(derEncoded: bytes)
        let verdict = ReceiptVerifier(trust: try TrustStore.apple()).verify(receipt)
        #expect(verdict.status == .invalid)
        #expect(!verdict.reason.contains("\n"))
        let artefact = DecodedArtefact.unified(receipt)
        #expect(!TreeTextRenderer.lines(artefact.tree(now: Date(timeIntervalSince1970: 1_748_779_200))).isEmpty)
    }

    /// `verifyreceipt` found it: a number of 19 nines overflowed the plain JSON reader's Int
    /// (its 18-digit limit was checked after the digit was added), an arithmetic-overflow trap.
    @Test("a verifyReceipt answer with a 19-digit number decodes or fails in one line, never traps")
    func nineteenDigitNumberInVerifyReceiptJSON() throws {
        let bytes = try FuzzCorpus.bytes("verifyreceipt", "crash-841d81eeabdad5b88bf5b4cd48eb3e4822407a54")
        do {
            _ = try VerifyReceiptResponse(json: bytes)
        } catch let error as ReceiptError {
            #expect(!error.description.contains("\n"))
        }
        let nines = Array(#"{"status":9999999999999999999}"#.utf8)
        #expect(throws: ReceiptError.self) { try VerifyReceiptResponse(json: nines) }
    }

    @Test("the TLV scanner asked at the end of a container (or of an empty one) says truncated")
    func scanAtTheEnd() {
        let bytes: [UInt8] = [0x30, 0x02, 0x30, 0x00]
        for (position, end) in [(2, 2), (4, 4), (0, 0), (4, 2)] {
            let code = bytes.withUnsafeBufferPointer { buffer -> ReceiptError.Code? in
                do {
                    _ = try TLVScanner.scan(buffer, at: position, end: end, depth: 0, maxDepth: 8)
                    return nil
                } catch let error as ReceiptError {
                    return error.code
                } catch {
                    return nil
                }
            }
            #expect(code == .truncated, "at \(position), end \(end)")
        }
    }
}
