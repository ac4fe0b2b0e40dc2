import Foundation
import StoreSimulator
import Testing
@testable import ReceiptCore

/// Hand-made containers for the limit tests: a SignedData around any payload, certificates and
/// signers (decoding does not check the signature, so none is needed), and receipt attributes.
enum LimitFixtures {
    /// `ContentInfo { signedData, [0] SignedData { 1, {}, { data, [0] payload }, [0] certs, signers } }`.
    static func container(payload: [UInt8], certificates: [[UInt8]] = [], signers: [[UInt8]] = []) -> [UInt8] {
        var fields: [[UInt8]] = [DER.integer(1), DER.set([]),
                                 DER.sequence([DER.oid(.pkcs7Data), DER.explicit(0, DER.octetString(payload))])]
        if !certificates.isEmpty { fields.append(DER.tlv(.context(0, constructed: true), certificates.flatMap { $0 })) }
        fields.append(DER.set(signers))
        return DER.sequence([DER.oid(.pkcs7SignedData), DER.explicit(0, DER.sequence(fields))])
    }

    /// `ReceiptAttribute ::= SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }`.
    static func attribute(_ type: Int64, _ value: [UInt8]) -> [UInt8] {
        DER.sequence([DER.integer(type), DER.integer(1), DER.octetString(value)])
    }

    /// A payload SET holding `count` in-app purchases of one attribute each.
    static func purchases(_ count: Int) -> [UInt8] {
        let purchase = attribute(17, DER.set([attribute(1703, DER.utf8String("1000000000000001"))]))
        return DER.set([attribute(2, DER.utf8String("com.example.app"))] + Array(repeating: purchase, count: count))
    }

    /// The first SignerInfo of a receipt built by the simulator, as encoded.
    static func realSignerInfo() throws -> [UInt8] {
        let der = try UnifiedReceiptBuilder(bundleId: "com.example.app", appVersion: "1", creationDate: CivilTime(year: 2025, month: 6, day: 1, hour: 12).date)
            .build(signedBy: try TestCertificateAuthority.shared()).der
        var outer = try ASN1Reader.parseSingle(der, "receipt").children()
        _ = try outer.read("contentType")
        var wrapper = try outer.read("[0]").children()
        var fields = try wrapper.read("SignedData").children()
        var last: ASN1Node?
        while let field = try fields.readIfPresent() { last = field }
        var signers = try #require(last).children()
        return Array(try signers.read("SignerInfo").encoded)
    }

    static func code(_ body: () throws -> Void) -> ReceiptError.Code? {
        do {
            try body()
            return nil
        } catch let error as ReceiptError {
            return error.code
        } catch {
            return nil
        }
    }
}

@Suite("Limits that hold under attack: purchases, attributes, certificates, signers, chains")
struct DecoderLimitsTests {
    typealias L = LimitFixtures

    @Test("a unified receipt holds at most 10,000 purchases; one more is refused as too large")
    func purchasesPerReceipt() throws {
        let atLimit = try AppReceipt(derEncoded: L.container(payload: L.purchases(AppReceipt.maxPurchases)))
        #expect(atLimit.inApp.count == AppReceipt.maxPurchases)
        let over = L.container(payload: L.purchases(AppReceipt.maxPurchases + 1))
        let error = try #require(throws: ReceiptError.self) { try AppReceipt(derEncoded: over) }
        #expect(error.code == .tooLarge && error.reason.contains("more than 10000 in-app purchases"))
        #expect(!error.reason.contains("\n"))
    }

    @Test("a purchase holds at most 256 attributes")
    func attributesPerPurchase() throws {
        func receipt(_ count: Int) -> [UInt8] {
            let attributes = (0..<count).map { L.attribute(Int64(9_000 + $0), DER.integer(1)) }
            return L.container(payload: DER.set([L.attribute(17, DER.set(attributes))]))
        }
        #expect(try AppReceipt(derEncoded: receipt(InAppPurchase.maxAttributes)).inApp.first?.attributes.count == 256)
        let error = try #require(throws: ReceiptError.self) { try AppReceipt(derEncoded: receipt(InAppPurchase.maxAttributes + 1)) }
        #expect(error.code == .tooLarge && error.reason.contains("in_app[0]: more than 256 attributes"))
    }

    @Test("a PKCS#7 container carries at most 16 certificates and 8 signers")
    func certificatesAndSigners() throws {
        let leaf = try TestCertificateAuthority.shared().receiptLeaf.der
        let payload = L.purchases(1)
        #expect(try SignedData(berEncoded: L.container(payload: payload, certificates: Array(repeating: leaf, count: 16))).certificates.count == 16)
        let many = L.container(payload: payload, certificates: Array(repeating: leaf, count: 17))
        let error = try #require(throws: ReceiptError.self) { try AppReceipt(derEncoded: many) }
        #expect(error.code == .tooLarge && error.reason.contains("more than 16 certificates"))

        let signer = try L.realSignerInfo()
        #expect(try SignedData(berEncoded: L.container(payload: payload, signers: Array(repeating: signer, count: 8))).signers.count == 8)
        let crowd = L.container(payload: payload, signers: Array(repeating: signer, count: 9))
        #expect(L.code { _ = try SignedData(berEncoded: crowd) } == .tooLarge)
    }

    @Test("a JWS x5c chain holds at most 8 certificates")
    func jwsChainLength() throws {
        let authority = try TestCertificateAuthority.shared()
        let payload = JSONValue.object([("transactionId", .string("1")), ("bundleId", .string("com.example.app"))])
        let eight = try JWSBuilder(signingKey: authority.jwsLeafKey, certificates: Array(repeating: authority.ecLeaf, count: 8)).sign(payload)
        #expect(try CompactJWS(compact: eight).x5c?.count == CompactJWS.maxChainLength)
        let nine = try JWSBuilder(signingKey: authority.jwsLeafKey, certificates: Array(repeating: authority.ecLeaf, count: 9)).sign(payload)
        let error = try #require(throws: ReceiptError.self) { try SignedTransaction(compactJWS: nine) }
        #expect(error.code == .tooLarge && error.reason.contains("9 certificates, at most 8"))
        #expect(L.code { _ = try ReceiptDecoder.decode(Array(nine.utf8)) } == .tooLarge)
    }

    @Test("Apple's verifyReceipt answer lists at most 10,000 purchases per list")
    func verifyReceiptLists() throws {
        func answer(_ key: String, _ count: Int) -> [UInt8] {
            let entries = Array(repeating: #"{"transaction_id":"1","product_id":"p"}"#, count: count).joined(separator: ",")
            let list = "\"\(key)\":[\(entries)]"
            return Array((key == "in_app" ? #"{"status":0,"receipt":{\#(list)}}"# : #"{"status":0,\#(list)}"#).utf8)
        }
        #expect(try VerifyReceiptResponse(json: answer("in_app", AppReceipt.maxPurchases)).inApp.count == AppReceipt.maxPurchases)
        for key in ["in_app", "latest_receipt_info", "pending_renewal_info"] {
            #expect(L.code { _ = try VerifyReceiptResponse(json: answer(key, AppReceipt.maxPurchases + 1)) } == .tooLarge, "\(key)")
        }
    }

    @Test("nesting: BER 10,000 deep, JSON 10,000 deep and a plist 10,000 deep fail cleanly")
    func deepInputEverywhere() {
        let ber = Array(repeating: [UInt8]([0x30, 0x80]), count: 10_000).flatMap { $0 } + Array(repeating: 0, count: 20_000)
        #expect(L.code { _ = try ASN1Reader.parseSingle(ber, "deep") } == .tooDeep)
        #expect(L.code { _ = try AppReceipt(derEncoded: ber) } == .tooDeep)
        let json = Array(String(repeating: "[", count: 10_000).utf8)
        #expect(L.code { _ = try VerifyReceiptResponse(json: json) } != nil)
        let plist = Array((String(repeating: "{a=", count: 10_000)).utf8)
        #expect(L.code { _ = try PlistValue(openStep: plist) } == .tooDeep)
    }
}
