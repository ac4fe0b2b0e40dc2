import Foundation
import Testing
@testable import ReceiptCore

@Suite("BER/DER reader and writer")
struct ASN1ReaderTests {
    @Test func definiteLengthsRoundTrip() throws {
        let encoded = DER.sequence([DER.integer(-129), DER.utf8String("串单"), DER.octetString([UInt8](repeating: 7, count: 300)),
                                    DER.oid(.pkcs7SignedData), DER.set([DER.integer(0), DER.integer(65536)])])
        let node = try ASN1Reader.parseSingle(encoded, "test")
        var reader = node.children()
        #expect(try reader.read(.integer, "i").integer("i") == -129)
        #expect(try reader.read(.utf8String, "s").string("s") == "串单")
        #expect(try reader.read(.octetString, "o").octets("o").count == 300)
        #expect(try reader.read(.objectIdentifier, "oid").objectIdentifier("oid") == "1.2.840.113549.1.7.2")
        var set = try reader.read(.set, "set").children()
        #expect(try set.read("a").integer("a") == 0)
        #expect(try set.read("b").integer("b") == 65536)
        try reader.finish("test")
        #expect(Array(node.encoded) == encoded, "re-reading gives identical bytes")
    }

    @Test func integerEncodingIsMinimal() {
        #expect(DER.integer(0) == [0x02, 0x01, 0x00])
        #expect(DER.integer(127) == [0x02, 0x01, 0x7F])
        #expect(DER.integer(128) == [0x02, 0x02, 0x00, 0x80])
        #expect(DER.integer(-1) == [0x02, 0x01, 0xFF])
        #expect(DER.integer(-128) == [0x02, 0x01, 0x80])
    }

    @Test func indefiniteLengthAndConstructedOctetString() throws {
        // SEQUENCE (indefinite) { OCTET STRING (constructed, indefinite) { "ab", "cd" } }
        let bytes: [UInt8] = [0x30, 0x80, 0x24, 0x80, 0x04, 0x02, 0x61, 0x62, 0x04, 0x02, 0x63, 0x64, 0x00, 0x00, 0x00, 0x00]
        let node = try ASN1Reader.parseSingle(bytes, "ber")
        #expect(node.isIndefinite)
        var reader = node.children()
        let octets = try reader.read("octets")
        #expect(octets.tag.isConstructed)
        #expect(try octets.octets("octets") == Array("abcd".utf8))
        try reader.finish("ber")
    }

    @Test func truncatedInputFails() {
        let bytes: [UInt8] = [0x30, 0x05, 0x02, 0x01]
        #expect(throws: ReceiptError(.badLength, "")) { _ = try ASN1Reader.parseSingle(bytes, "t") }
        #expect(throws: ReceiptError(.truncated, "")) { _ = try ASN1Reader.parseSingle([0x30], "t") }
        #expect(throws: ReceiptError(.truncated, "")) { _ = try ASN1Reader.parseSingle([0x30, 0x82, 0x01], "t") }
    }

    @Test func hostileLengthNeverAllocates() throws {
        let bytes: [UInt8] = [0x04, 0x84, 0x7F, 0xFF, 0xFF, 0xFF, 0x00]
        do {
            _ = try ASN1Reader.parseSingle(bytes, "t")
            Issue.record("accepted a 2 GiB length")
        } catch let error as ReceiptError {
            #expect(error.code == .badLength)
            #expect(error.reason.contains("byte 0"))
        }
        #expect(throws: ReceiptError(.badLength, "")) { _ = try ASN1Reader.parseSingle([0x04, 0x89, 1, 2, 3, 4, 5, 6, 7, 8, 9], "t") }
    }

    @Test func trailingBytesFail() {
        #expect(throws: ReceiptError(.trailingBytes, "")) { _ = try ASN1Reader.parseSingle([0x05, 0x00, 0x00], "t") }
    }

    @Test func tenThousandDeepNestingFailsCleanly() throws {
        var definite: [UInt8] = [0x05, 0x00]
        for _ in 0..<10_000 { definite = DER.sequence([definite]) }
        var indefinite = [UInt8](repeating: 0, count: 0)
        for _ in 0..<10_000 { indefinite += [0x30, 0x80] }
        indefinite += [UInt8](repeating: 0, count: 20_000)
        // Walk the definite one all the way down.
        func walk(_ node: ASN1Node) throws {
            var reader = node.children()
            while let child = try reader.readIfPresent() {
                if child.tag.isConstructed { try walk(child) }
            }
        }
        #expect(throws: ReceiptError(.tooDeep, "")) { try walk(try ASN1Reader.parseSingle(definite, "deep")) }
        #expect(throws: ReceiptError(.tooDeep, "")) { _ = try ASN1Reader.parseSingle(indefinite, "deep") }
    }

    @Test func indefiniteLengthOnPrimitiveAndMissingEndFail() {
        #expect(throws: ReceiptError(.badLength, "")) { _ = try ASN1Reader.parseSingle([0x04, 0x80, 0x00, 0x00], "t") }
        #expect(throws: ReceiptError(.truncated, "")) { _ = try ASN1Reader.parseSingle([0x30, 0x80, 0x05, 0x00], "t") }
    }

    @Test func oidRoundTrip() throws {
        for dotted in ["1.2.840.113635.100.6.11.1", "2.16.840.1.101.3.4.2.1", "1.3.14.3.2.26", "2.999.3"] {
            let oid = try #require(OID(dotted))
            let node = try ASN1Reader.parseSingle(DER.oid(oid), "oid")
            #expect(try node.objectIdentifier("oid") == dotted)
        }
        #expect(OID("3.1") == nil)
        #expect(OID("1") == nil)
    }
}
