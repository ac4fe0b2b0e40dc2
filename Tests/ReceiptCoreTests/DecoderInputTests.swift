import Foundation
import Testing
@testable import ReceiptCore

@Suite("Format detection and bad input")
struct DecoderInputTests {
    func decodeError(_ bytes: [UInt8]) -> ReceiptError? {
        do {
            _ = try ReceiptDecoder.decode(bytes)
            return nil
        } catch let error as ReceiptError {
            return error
        } catch {
            return nil
        }
    }

    @Test func detectsEveryFormat() throws {
        let base64 = try SampleFiles.text("unified-sandbox-sha256-g5.b64")
        #expect(try ReceiptDecoder.decode(Array(base64.utf8)).format == .unified)
        var wrapped = ""
        for (index, character) in base64.filter({ !$0.isWhitespace }).enumerated() {
            if index > 0 && index % 76 == 0 { wrapped += "\r\n" }
            wrapped.append(character)
        }
        #expect(try ReceiptDecoder.decode(Array(wrapped.utf8)).format == .unified, "base64 with line breaks")
        #expect(try ReceiptDecoder.decode(try SampleFiles.der("unified-sandbox-sha256-g5.b64")).format == .unified, "raw DER")
        #expect(try ReceiptDecoder.decode(try SampleFiles.bytes("legacy-ios6-sandbox.b64")).format == .legacy)
        #expect(try ReceiptDecoder.decode(try SampleFiles.der("legacy-ios6-sandbox.b64")).format == .legacy, "plist text")
        #expect(try ReceiptDecoder.decode(try SampleFiles.bytes("real-transaction-sandbox.jws")).format == .jwsTransaction)
        #expect(try ReceiptDecoder.decode(try SampleFiles.bytes("real-renewal-info-sandbox.jws")).format == .jwsRenewalInfo)
        #expect(try ReceiptDecoder.decode(try SampleFiles.bytes("xcode-app-transaction.jws")).format == .jwsAppTransaction)
        #expect(try ReceiptDecoder.decode(try SampleFiles.bytes("testca-testNotification.jws")).format == .notification)
        let answer = #"{"status":0,"environment":"Sandbox","receipt":{"bundle_id":"com.x","in_app":[]}}"#
        #expect(try ReceiptDecoder.decode(Array(answer.utf8)).format == .verifyReceiptResponse)
    }

    @Test func oversizedInputIsRefusedBeforeParsing() {
        let error = decodeError([UInt8](repeating: 0x41, count: ReceiptDecoder.maxInputSize + 1))
        #expect(error?.code == .tooLarge)
        #expect(error?.reason.contains("16 MiB") == true)
    }

    @Test func truncatedReceiptNamesFormatAndOffset() throws {
        let der = try SampleFiles.der("unified-sandbox-sha256-g5.b64")
        for length in [1, 2, 10, 100, der.count / 2, der.count - 1] {
            let error = try #require(decodeError(Array(der.prefix(length))), "truncated at \(length) decoded")
            #expect(error.reason.contains("unified receipt"), "\(error.reason)")
            #expect(error.reason.contains("byte"), "\(error.reason)")
        }
    }

    @Test func trailingBytesAfterReceipt() throws {
        let der = try SampleFiles.der("unified-sandbox-sha256-g5.b64")
        let error = try #require(decodeError(der + [0x00, 0x01]))
        #expect(error.code == .trailingBytes)
        #expect(error.reason.contains("byte \(der.count)"))
    }

    @Test func wrongTagIsNamed() throws {
        var der = try SampleFiles.der("unified-sandbox-sha256-g5.b64")
        // The contentType OID of the ContentInfo sits right after the outer header.
        let oidOffset = try ASN1Reader.parseSingle(der, "x").contentStart
        der[oidOffset] = 0x04
        let error = try #require(decodeError(der))
        #expect(error.code == .unexpectedTag)
        #expect(error.reason.contains("expected OBJECT IDENTIFIER, found OCTET STRING"))
    }

    @Test func garbledBytesNeverCrash() throws {
        let der = try SampleFiles.der("unified-sandbox-sha256-g5.b64")
        var generator = SplitMix(seed: 42)
        for _ in 0..<2000 {
            var copy = der
            for _ in 0..<4 { copy[Int(generator.next() % UInt64(copy.count))] = UInt8(truncatingIfNeeded: generator.next()) }
            if let error = decodeError(copy) {
                #expect(!error.reason.isEmpty)
                #expect(!error.reason.contains("\n"))
            }
        }
    }

    @Test func badBase64AndBadUTF8() {
        let base64 = decodeError(Array("MIIT@@@notbase64".utf8))
        #expect(base64?.code == .badBase64)
        let utf8 = decodeError([0x7B, 0xFF, 0xFE])
        #expect(utf8?.code == .badUTF8)
        let binary = decodeError([0xFF, 0x00, 0x12])
        #expect(binary?.code == .badUTF8)
        #expect(binary?.reason.contains("neither DER") == true)
    }

    @Test func deepJSONIsRefused() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        let error = decodeError(Array(("{\"a\":" + deep + "}").utf8))
        #expect(error?.code == .tooDeep)
    }

    @Test func deepBERIsRefused() {
        var bytes: [UInt8] = []
        for _ in 0..<10_000 { bytes += [0x30, 0x80] }
        bytes += [UInt8](repeating: 0, count: 20_000)
        #expect(decodeError(bytes)?.code == .tooDeep)
    }

    @Test func emptyAndUnknownInput() {
        #expect(decodeError([])?.code == .unknownFormat)
        #expect(decodeError(Array("   \n".utf8))?.code == .unknownFormat)
        #expect(decodeError(Array(#"{"hello":"world"}"#.utf8))?.code == .unknownFormat)
        #expect(decodeError(Array("aGVsbG8gd29ybGQ=".utf8))?.code == .unknownFormat)
    }

    @Test func badDateNamesTheField() throws {
        let payload = DER.set([DER.sequence([DER.integer(12), DER.integer(1), DER.octetString(DER.ia5String("2020-07-22 18:33"))])])
        let receipt = DER.sequence([DER.oid(.pkcs7SignedData), DER.explicit(0, DER.sequence([
            DER.integer(1), DER.set([]),
            DER.sequence([DER.oid(.pkcs7Data), DER.explicit(0, DER.octetString(payload))]),
            DER.set([]),
        ]))])
        let error = try #require(decodeError(receipt))
        #expect(error.reason == "unified receipt: field 12 (receipt_creation_date) is not RFC 3339: '2020-07-22 18:33'")
    }

    @Test func verifyReceiptAnswerDecodesIntoTheSameModel() throws {
        let answer = """
        {"status":0,"environment":"Sandbox","is-retryable":false,
         "receipt":{"receipt_type":"ProductionSandbox","bundle_id":"com.example.app","application_version":"42",
                    "original_application_version":"1.0","receipt_creation_date_ms":"1766774387000",
                    "in_app":[{"quantity":"1","product_id":"coins.100","transaction_id":"1000000359369424",
                               "original_transaction_id":"1000000359369424","purchase_date":"2017-12-14 10:00:00 Etc/GMT",
                               "purchase_date_ms":"1513245600000","is_trial_period":"false"}]},
         "latest_receipt_info":[{"quantity":"1","product_id":"pro.monthly","transaction_id":"2","original_transaction_id":"1",
                                 "purchase_date_ms":"1513245600000","expires_date_ms":"1515924000000",
                                 "cancellation_date_ms":"1514000000000","app_account_token":"5A3C-TOKEN"}],
         "pending_renewal_info":[{"auto_renew_product_id":"pro.monthly","auto_renew_status":"0"}]}
        """
        let artefact = try ReceiptDecoder.decode(Array(answer.utf8))
        guard case .verifyReceiptResponse(let response) = artefact else { Issue.record("wrong format"); return }
        #expect(response.status == 0)
        #expect(response.environment == EnvironmentReading(.sandbox, source: .appleAnswer, rawValue: "Sandbox"))
        #expect(response.isRetryable == false)
        #expect(response.bundleId == "com.example.app")
        #expect(response.originalAppVersion == "1.0")
        #expect(response.creationDate == Date(timeIntervalSince1970: 1766774387))
        #expect(response.inApp.first?.transactionId == "1000000359369424")
        #expect(response.inApp.first?.purchaseDate == Date(timeIntervalSince1970: 1513245600))
        #expect(response.inApp.first?.isTrialPeriod == false)
        #expect(response.latestReceiptInfo.first?.appAccountToken == "5A3C-TOKEN")
        #expect(response.latestReceiptInfo.first?.cancellationDate == Date(timeIntervalSince1970: 1514000000))
        #expect(response.pendingRenewalInfo.count == 1)
        #expect(artefact.summary.purchases.first?.productId == "pro.monthly", "latest_receipt_info wins when present")
        let verdict = ReceiptVerifier(trust: SampleFiles.apple).verify(artefact)
        #expect(verdict.status == .unsigned)
        let tree = artefact.tree(now: Date(timeIntervalSince1970: 1600000000))
        #expect(tree.first(labelled: "status")?.value == "0: valid")
        #expect(tree.allWarnings.contains { $0.kind == .cancelled })
    }
}

/// A small deterministic generator for garbling inputs.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E3779B97F4A7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
        return z ^ (z >> 31)
    }
}
