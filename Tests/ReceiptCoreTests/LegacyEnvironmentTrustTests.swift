import Foundation
import ReceiptCore
import Testing

/// The environment of a legacy iOS 6 receipt comes from its signed purchase-info (`app-item-id`),
/// never from the envelope's `environment` key, which sits outside the signature. Genuine Apple
/// receipts, edited as an attacker would edit them.
@Suite("Legacy receipts: the environment comes from what is signed")
struct LegacyEnvironmentTrustTests {
    /// The receipt's envelope text with `edit` applied, re-encoded as apps send it.
    static func edited(_ sample: String, _ edit: (String) -> String) throws -> [UInt8] {
        let envelope = String(decoding: try Base64.decode(try SampleFiles.text(sample), sample), as: UTF8.self)
        let changed = edit(envelope)
        #expect(changed != envelope, "the edit changed nothing")
        return Array(Data(changed.utf8).base64EncodedString().utf8)
    }

    static let sandboxLine = "\t\"environment\" = \"Sandbox\";\n"

    static func decode(_ bytes: [UInt8]) throws -> (DecodedArtefact, Verdict) {
        let artefact = try ReceiptDecoder.decode(bytes)
        return (artefact, ReceiptVerifier(trust: SampleFiles.apple).verify(artefact))
    }

    @Test("a genuine sandbox receipt reads as sandbox from its signed purchase-info, the envelope agreeing",
          arguments: ["legacy-ios6-sandbox.b64", "legacy-v3-sandbox-jjw.b64"])
    func genuineSandbox(_ sample: String) throws {
        let (artefact, verdict) = try Self.decode(try SampleFiles.bytes(sample))
        #expect(verdict.status == .valid)
        let reading = artefact.summary.environment
        #expect(reading.environment == .sandbox)
        #expect(reading.source == .legacyPurchaseInfo)
        #expect(reading.isSigned)
        #expect(reading.rawValue == "app-item-id absent")
        #expect(reading.claim == EnvironmentClaim(environment: .sandbox, source: .legacyEnvironmentKey, rawValue: "Sandbox", disagrees: false))
        #expect(!reading.isMismatch)
    }

    @Test("deleting the sandbox line, or setting it to Production, leaves a valid receipt that is still sandbox, with MISMATCH",
          arguments: ["legacy-ios6-sandbox.b64", "legacy-v3-sandbox-jjw.b64"], ["delete", "Production"])
    func editedSandboxStaysSandbox(_ sample: String, _ edit: String) throws {
        let bytes = try Self.edited(sample) { text in
            edit == "delete" ? text.replacingOccurrences(of: Self.sandboxLine, with: "")
                : text.replacingOccurrences(of: "\"Sandbox\"", with: "\"Production\"")
        }
        let (artefact, verdict) = try Self.decode(bytes)
        // The signature covers purchase-info only, so the edit does not break it: the environment must not follow the edit.
        #expect(verdict.status == .valid)
        let reading = artefact.summary.environment
        #expect(reading.environment == .sandbox)
        #expect(reading.environment != .production)
        #expect(reading.isMismatch)
        #expect(reading.claim?.environment == .production)
        #expect(reading.claim?.rawValue == (edit == "delete" ? nil : "Production"))
        #expect(reading.description.contains("MISMATCH"))

        let tree = artefact.tree(now: Date(timeIntervalSince1970: 1_700_000_000))
        let node = try #require(tree.children.first { $0.label == "environment" })
        #expect((node.value ?? "").contains("unsigned claim"))
        #expect((node.value ?? "").contains("signed purchase-info: app-item-id absent → Sandbox"))
        #expect(node.warnings.contains { $0.kind == .environmentMismatch && $0.message.hasPrefix("MISMATCH") })

        let json = DecodeReport.json(artefact, verdict: verdict, now: Date(), includeTree: false)
        #expect(json["environment"] == .string("Sandbox"))
        let evidence = try #require(json["environmentEvidence"])
        #expect(evidence["signed"] == .bool(true))
        #expect(evidence["mismatch"] == .bool(true))
        #expect(evidence["claim"]?["signed"] == .bool(false))
        #expect(evidence["claim"]?["environment"] == .string("Production"))
    }

    @Test("genuine production receipts (versions 2 and 3) read as production; a Sandbox line added makes them sandbox, with MISMATCH",
          arguments: ["legacy-v2-production-ctr.b64", "legacy-v3-production-jbgd.b64", "legacy-v3-production-twc.b64"])
    func production(_ sample: String) throws {
        let (artefact, verdict) = try Self.decode(try SampleFiles.bytes(sample))
        #expect(verdict.status == .valid)
        #expect(artefact.summary.environment.environment == .production)
        #expect(artefact.summary.environment.isSigned)
        #expect(!artefact.summary.environment.isMismatch)

        let marked = try Self.edited(sample) { $0.replacingOccurrences(of: "\t\"pod\"", with: Self.sandboxLine + "\t\"pod\"") }
        let (edited, editedVerdict) = try Self.decode(marked)
        #expect(editedVerdict.status == .valid)
        #expect(edited.summary.environment.environment == .sandbox)
        #expect(edited.summary.environment.isMismatch)
    }

    @Test("app-item-id 0, or a zero version-external-identifier, is sandbox evidence (Apple writes 0 in the sandbox)")
    func zeroIdsAreSandbox() throws {
        func reading(_ extra: String) throws -> EnvironmentReading {
            let info = "{\n\t\"transaction-id\" = \"1\";\n\t\"purchase-date-ms\" = \"1335798355868\";\n\(extra)}"
            let envelope = "{\n\t\"purchase-info\" = \"\(Data(info.utf8).base64EncodedString())\";\n}"
            return try LegacyReceipt(base64: Data(envelope.utf8).base64EncodedString()).environment
        }
        #expect(try reading("\t\"app-item-id\" = \"0\";\n").environment == .sandbox)
        #expect(try reading("\t\"app-item-id\" = \"12\";\n\t\"version-external-identifier\" = \"0\";\n").environment == .sandbox)
        #expect(try reading("\t\"app-item-id\" = \"12\";\n\t\"version-external-identifier\" = \"7\";\n").environment == .production)
        // Without a signature the same fields are no evidence of anything signed.
        #expect(try reading("\t\"app-item-id\" = \"12\";\n").isSigned == false)
    }

    @Test("every format says whether the field its environment came from is signed")
    func signedFlagForEveryFormat() throws {
        let cases: [(String, EnvironmentReading.Source, Bool)] = [
            ("unified-sandbox-sha256-g5.b64", .receiptTypeField, true),
            ("real-transaction-sandbox.jws", .jwsEnvironment, true),
            ("real-renewal-info-sandbox.jws", .jwsEnvironment, true),
            ("testca-testNotification.jws", .jwsEnvironment, true),
            ("transaction-payload.json", .jwsEnvironment, false),
            ("notification-payload.json", .jwsEnvironment, false),
            ("legacy-ios6-sandbox.b64", .legacyPurchaseInfo, true),
            ("legacy-synthetic-minimal.b64", .legacyPurchaseInfo, false),
        ]
        for (sample, source, signed) in cases {
            let artefact = try ReceiptDecoder.decode(try SampleFiles.bytes(sample))
            let reading = artefact.summary.environment
            #expect(reading.source == source, "\(sample)")
            #expect(reading.isSigned == signed, "\(sample)")
            let json = DecodeReport.json(artefact, verdict: Verdict(.unsigned, ""), now: Date(), includeTree: true)
            #expect(json["environmentEvidence"]?["signed"] == .bool(signed), "\(sample)")
            if case .legacy = artefact { continue }
            let evidence = artefact.tree(now: Date()).children.first
            #expect(evidence?.label == "environment evidence", "\(sample)")
            let evidenceValue: String = evidence?.value ?? ""
            #expect(evidenceValue.hasSuffix(signed ? "· signed" : "· unsigned"), "\(sample)")
        }
        let answer = try ReceiptDecoder.decode(Array(#"{"status":0,"environment":"Sandbox","receipt":{"in_app":[]}}"#.utf8))
        #expect(answer.summary.environment.source == .appleAnswer)
        #expect(!answer.summary.environment.isSigned)
    }
}
