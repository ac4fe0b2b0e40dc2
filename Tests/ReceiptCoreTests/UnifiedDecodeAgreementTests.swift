import Foundation
import Testing
@testable import ReceiptCore

/// RFC 3339 as `RFC3339.parse(bytes:)` read it before its fixed part was read without optionals:
/// the new reading must give the same instant, or nil, for every input.
enum ReferenceRFC3339 {
    static func parse(_ b: UnsafeBufferPointer<UInt8>) -> Date? {
        guard b.count >= 20 else { return nil }
        func digits(_ from: Int, _ count: Int) -> Int? {
            var value = 0
            for i in from..<(from + count) {
                let c = b[i]
                guard c >= 48 && c <= 57 else { return nil }
                value = value * 10 + Int(c - 48)
            }
            return value
        }
        guard let year = digits(0, 4), b[4] == 45, let month = digits(5, 2), b[7] == 45,
              let day = digits(8, 2), b[10] == 84 || b[10] == 116 || b[10] == 32,
              let hour = digits(11, 2), b[13] == 58, let minute = digits(14, 2), b[16] == 58,
              let second = digits(17, 2) else { return nil }
        var i = 19
        var nanos = 0
        if b[i] == 46 {
            i += 1
            var scale = 100_000_000
            let start = i
            while i < b.count, b[i] >= 48, b[i] <= 57 {
                nanos += Int(b[i] - 48) * scale
                scale /= 10
                i += 1
            }
            guard i > start, i - start <= 9 else { return nil }
            nanos -= nanos % 1_000_000
        }
        guard i < b.count else { return nil }
        var offset = 0
        switch b[i] {
        case 90, 122:
            i += 1
        case 43, 45:
            let sign = b[i] == 45 ? -1 : 1
            i += 1
            guard b.count - i >= 4, let hh = digits(i, 2) else { return nil }
            i += 2
            if b[i] == 58 { i += 1 }
            guard b.count - i >= 2, let mm = digits(i, 2), hh < 24, mm < 60 else { return nil }
            i += 2
            offset = sign * (hh * 3600 + mm * 60)
        default:
            return nil
        }
        guard i == b.count else { return nil }
        let civil = CivilTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second, nanosecond: nanos)
        guard civil.isValid else { return nil }
        let seconds = Int64(civil.daysSinceEpoch) * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offset)
        return RFC3339.instant(milliseconds: seconds * 1000 + Int64(nanos / 1_000_000))
    }
}

@Suite("Unified receipt decoding agrees with the plain readings")
struct UnifiedDecodeAgreementTests {
    static let dates = ["2025-12-26T18:39:47Z", "2020-07-22T18:33:15+0100", "2020-07-22T18:33:15.250-05:30",
                        "4001-01-01T00:00:00+0000", "2024-02-29 23:59:60.123456789z", "0000-01-01T00:00:00Z"]

    @Test("RFC 3339: the same instant or nil as the optional-digit reading, on every mutation")
    func datesAgreeWithTheReference() {
        var inputs: [[UInt8]] = []
        for text in Self.dates {
            let bytes = Array(text.utf8)
            inputs += Mutations.of(bytes) + [bytes]
            // Every octet value at every position.
            for index in bytes.indices {
                for value in UInt8.min...UInt8.max {
                    var copy = bytes
                    copy[index] = value
                    inputs.append(copy)
                }
            }
        }
        var parsed = 0
        for input in inputs {
            input.withUnsafeBufferPointer { bytes in
                let reference = ReferenceRFC3339.parse(bytes)
                #expect(RFC3339.parse(bytes: bytes) == reference, "\(String(decoding: input, as: UTF8.self))")
                if reference != nil { parsed += 1 }
            }
        }
        #expect(parsed > 900)
    }

    @Test("a tag class from its identifier octet, for every octet")
    func tagClassOfEveryOctet() {
        for octet in UInt8.min...UInt8.max {
            #expect(ASN1Tag.TagClass.of(identifier: octet) == ASN1Tag.TagClass(rawValue: octet >> 6))
        }
    }

    @Test("repeated strings: the text reused is the text each attribute holds, on every mutation of the real receipts")
    func reusedStringsAreEachAttributesText() throws {
        var decoded = 0
        for name in ["unified-sandbox-sha256-g5.b64", "unified-xcode-ber.b64", "unified-xcode-empty.b64"] {
            let real = try SampleFiles.der(name)
            for input in Mutations.of(real) + [real] {
                guard let receipt = try? AppReceipt(derEncoded: input) else { continue }
                decoded += 1
                try Self.checkAgainstAttributes(receipt)
            }
        }
        #expect(decoded > 1_000)
    }

    @Test("purchases repeating a product and an original transaction share them, and keep their own values")
    func repeatedPurchaseValues() throws {
        let receipt = try AppReceipt(derEncoded: try SampleFiles.der("unified-sandbox-sha256-g5.b64"))
        #expect(receipt.receiptType == "ProductionSandbox")
        #expect(receipt.inApp.map(\.productId) == Array(repeating: "dev.bonzer.weeka.app.subscription.pro.annual", count: 2))
        #expect(receipt.inApp.map(\.transactionId) == ["2000001092134138", "2000001092148094"])
        #expect(receipt.inApp.map(\.originalTransactionId) == ["2000001092134138", "2000001092134138"])
        try Self.checkAgainstAttributes(receipt)
    }

    @Test("the device-hash inputs are copied out when read, and a value set replaces them")
    func payloadBytesReadAndSet() throws {
        var receipt = try AppReceipt(derEncoded: try SampleFiles.der("unified-sandbox-sha256-g5.b64"))
        #expect(receipt.opaqueValue?.hexString == "be1dd3ea9bcf4d08652eb539b9e05694")
        #expect(receipt.bundleIdData == [0x0C, 0x14] + Array("dev.bonzer.weeka.app".utf8))
        let original = receipt
        receipt.opaqueValue = [1, 2, 3]
        receipt.sha1Hash = nil
        receipt.bundleIdData = [9]
        #expect(receipt.opaqueValue == [1, 2, 3])
        #expect(receipt.sha1Hash == nil)
        #expect(receipt.bundleIdData == [9])
        #expect(original.sha1Hash?.hexString == "2158847543683847e9382a0fc51853cb17abcd6d")
        receipt.opaqueValue = nil
        #expect(receipt.opaqueValue == nil)
    }

    @Test("an OID matches content octets exactly when the bytes are equal")
    func oidMatchesItsBytes() {
        for oid in [OID.sha1, .sha256, .pkcs7SignedData, .messageDigestAttribute] {
            for input in Mutations.of(oid.encoded) + [oid.encoded, oid.encoded + [0], []] {
                input.withUnsafeBufferPointer { content in
                    #expect(oid.isEncoded(by: content) == input.elementsEqual(oid.encoded))
                }
            }
        }
    }

    /// Every typed field equals what its last attribute of that type reads as on its own: text
    /// through the non-reusing reader, dates through the reference parser, bytes as they lie in
    /// the payload.
    static func checkAgainstAttributes(_ receipt: AppReceipt) throws {
        let payload = receipt.payload
        func text(_ attributes: [ReceiptAttribute], _ type: Int) throws -> String? {
            guard let attribute = attributes.last(where: { $0.type == type }) else { return nil }
            return try payload.withUnsafeBufferPointer { bytes in try attribute.string(bytes, { "test" }) }
        }
        func date(_ attributes: [ReceiptAttribute], _ type: Int) throws -> Date? {
            guard let attribute = attributes.last(where: { $0.type == type }) else { return nil }
            return try payload.withUnsafeBufferPointer { bytes in
                guard let tlv = try attribute.inner(bytes, { "test" }), tlv.contentEnd > tlv.contentStart else { return nil }
                return ReferenceRFC3339.parse(UnsafeBufferPointer(rebasing: bytes[tlv.contentStart..<tlv.contentEnd]))
            }
        }
        let app = receipt.attributes
        func bytes(_ type: Int) -> [UInt8]? { app.last(where: { $0.type == type }).map { Array(payload[$0.valueRange]) } }
        #expect(receipt.bundleIdData == (bytes(2) ?? []))
        #expect(receipt.opaqueValue == bytes(4))
        #expect(receipt.sha1Hash == bytes(5))
        let texts = [try text(app, 0), try text(app, 2), try text(app, 3), try text(app, 19)]
        #expect([receipt.receiptType, receipt.bundleId, receipt.appVersion, receipt.originalAppVersion] == texts)
        let dates = [try date(app, 12), try date(app, 18), try date(app, 21)]
        #expect([receipt.creationDate, receipt.originalPurchaseDate, receipt.expirationDate] == dates)
        for purchase in receipt.inApp {
            let attributes = purchase.attributes
            let texts = [try text(attributes, 1702), try text(attributes, 1703), try text(attributes, 1705), try text(attributes, 1721)]
            #expect([purchase.productId, purchase.transactionId, purchase.originalTransactionId, purchase.promotionalOfferId] == texts)
            let dates = [try date(attributes, 1704), try date(attributes, 1706), try date(attributes, 1708), try date(attributes, 1712)]
            #expect([purchase.purchaseDate, purchase.originalPurchaseDate, purchase.expiresDate, purchase.cancellationDate] == dates)
        }
    }
}
