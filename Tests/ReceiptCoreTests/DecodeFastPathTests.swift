import Foundation
import Testing
@testable import ReceiptCore

/// The PKCS#7 container as `SignedData` parsed it before it walked borrowed bytes: the public
/// `ASN1Reader` and the same messages. The fast parser must agree with it on every input:
/// the same values, or the same error code and one-line reason.
enum ReferenceSignedData {
    struct Parsed: Equatable {
        var content: [UInt8]
        var certificates: [[UInt8]]
        var signers: [[[UInt8]?]]
    }

    static func parse(_ bytes: [UInt8], what: String) throws -> Parsed {
        let contentInfo = try ASN1Reader.parseSingle(bytes, "\(what) ContentInfo").expect(.sequence, "\(what) ContentInfo")
        var outer = contentInfo.children()
        let type = try outer.read(.objectIdentifier, "\(what) contentType")
        guard type.isObjectIdentifier(.pkcs7SignedData) else {
            throw ReceiptError(.unexpectedTag, "\(what): content type \(try type.objectIdentifier("contentType")) is not signedData")
        }
        let explicit = try outer.read(.context(0, constructed: true), "\(what) content [0]")
        try outer.finish("\(what) ContentInfo")
        var wrapper = explicit.children()
        let signedData = try wrapper.read(.sequence, "\(what) SignedData")
        try wrapper.finish("\(what) content [0]")
        var fields = signedData.children()
        _ = try fields.read(.integer, "\(what) SignedData version")
        _ = try fields.read(.set, "\(what) digestAlgorithms")
        let encap = try fields.read(.sequence, "\(what) encapContentInfo")
        var encapFields = encap.children()
        _ = try encapFields.read(.objectIdentifier, "\(what) eContentType")
        var content: [UInt8] = []
        if let eContent = try encapFields.readOptional(.context(0, constructed: true)) {
            var inner = eContent.children()
            let octets = try inner.read("\(what) eContent")
            guard octets.tag.primitive == .octetString else {
                throw ReceiptError(.unexpectedTag, "\(what) eContent at byte \(octets.headerStart): expected OCTET STRING, found \(octets.tag)")
            }
            content = try octets.octets("\(what) eContent")
            try inner.finish("\(what) eContent")
        }
        try encapFields.finish("\(what) encapContentInfo")
        var certificates: [[UInt8]] = []
        if let certs = try fields.readOptional(.context(0, constructed: true)) {
            var reader = certs.children()
            while let certificate = try reader.readIfPresent() {
                guard certificates.count < 16 else { throw ReceiptError(.tooLarge, "\(what): more than 16 certificates") }
                certificates.append(Array(certificate.encoded))
            }
        }
        _ = try fields.readOptional(.context(1, constructed: true))
        let signerSet = try fields.read(.set, "\(what) signerInfos")
        try fields.finish("\(what) SignedData")
        var signers: [[[UInt8]?]] = []
        var signerReader = signerSet.children()
        while let signer = try signerReader.readIfPresent() {
            guard signers.count < 8 else { throw ReceiptError(.tooLarge, "\(what): more than 8 signers") }
            signers.append(try signerInfo(signer, what: what))
        }
        return Parsed(content: content, certificates: certificates, signers: signers)
    }

    static func signerInfo(_ node: ASN1Node, what: String) throws -> [[UInt8]?] {
        var fields = try node.expect(.sequence, "\(what) SignerInfo").children()
        _ = try fields.read(.integer, "\(what) SignerInfo version")
        let sid = try fields.read("\(what) SignerInfo sid")
        var issuer: [UInt8]?, serial: [UInt8]?
        if sid.tag == .sequence {
            var parts = sid.children()
            issuer = Array(try parts.read(.sequence, "\(what) signer issuer").encoded)
            serial = Array(try parts.read(.integer, "\(what) signer serial").content)
        }
        let digestOID = try algorithm(try fields.read(.sequence, "\(what) digestAlgorithm"), what: what)
        var signedAttributes: [UInt8]?, messageDigest: [UInt8]?
        if let attributes = try fields.readOptional(.context(0, constructed: true)) {
            var encoded = Array(attributes.encoded)
            encoded[0] = 0x31
            signedAttributes = encoded
            var reader = attributes.children()
            while let attribute = try reader.readIfPresent() {
                var parts = try attribute.expect(.sequence, "\(what) signed attribute").children()
                let type = try parts.read(.objectIdentifier, "\(what) signed attribute type")
                let values = try parts.read(.set, "\(what) signed attribute values")
                if type.isObjectIdentifier(.messageDigestAttribute) {
                    var valueReader = values.children()
                    messageDigest = try valueReader.read(.octetString, "\(what) messageDigest").octets("messageDigest")
                }
            }
        }
        let signatureOID = try algorithm(try fields.read(.sequence, "\(what) signatureAlgorithm"), what: what)
        let signature = try fields.read(.octetString, "\(what) signature").octets("signature")
        _ = try fields.readOptional(.context(1, constructed: true))
        try fields.finish("\(what) SignerInfo")
        return [issuer, serial, digestOID, signedAttributes, messageDigest, signatureOID, signature]
    }

    static func algorithm(_ node: ASN1Node, what: String) throws -> [UInt8] {
        var parts = node.children()
        let oid = try parts.read(.objectIdentifier, "\(what) algorithm")
        guard let last = oid.content.last, last & 0x80 == 0 else {
            throw ReceiptError(.badValue, "\(what) algorithm at byte \(oid.headerStart): malformed OBJECT IDENTIFIER")
        }
        return Array(oid.content)
    }

    /// What the parser under test says, in the reference's shape.
    static func current(_ bytes: [UInt8], what: String) throws -> Parsed {
        let parsed = try SignedData(berEncoded: bytes, what: what)
        return Parsed(content: parsed.content, certificates: parsed.certificates.map { Array($0) },
                      signers: parsed.signers.map { signer in
                          [signer.issuer.map { Array($0) }, signer.serialNumber.map { Array($0) },
                           Array(signer.digestOIDContent), signer.signedAttributes, signer.messageDigest,
                           Array(signer.signatureOIDContent), signer.signature]
                      })
    }
}

/// Either the value or the error (code and reason), so two parsers can be compared on any input.
enum Outcome<Value: Equatable>: Equatable {
    case value(Value)
    case failure(ReceiptError.Code, String)

    init(_ body: () throws -> Value) {
        do {
            self = .value(try body())
        } catch let error as ReceiptError {
            self = .failure(error.code, error.reason)
        } catch {
            self = .failure(.configuration, "\(error)")
        }
    }
}

/// Inputs near the real ones: every truncation, and every byte replaced by values that break a
/// tag, a length or a string.
enum Mutations {
    static func of(_ bytes: [UInt8], stride: Int = 1) -> [[UInt8]] {
        var out: [[UInt8]] = []
        for length in Swift.stride(from: 0, to: bytes.count, by: stride) { out.append(Array(bytes[..<length])) }
        for index in Swift.stride(from: 0, to: bytes.count, by: stride) {
            for replacement: UInt8 in [0x00, 0x80, 0x81, 0x82, 0x84, 0xFF, bytes[index] ^ 0x20, bytes[index] &+ 1] where replacement != bytes[index] {
                var copy = bytes
                copy[index] = replacement
                out.append(copy)
            }
        }
        return out
    }
}

@Suite("Decoding fast paths agree with the full parsers")
struct DecodeFastPathTests {
    @Test("SignedData over borrowed bytes: the same values or the same error as the ASN1Reader walk")
    func signedDataAgreesWithTheReference() throws {
        let real = try SampleFiles.der("unified-sandbox-sha256-g5.b64")
        var checked = 0
        for input in Mutations.of(real, stride: 2) {
            let reference = Outcome { try ReferenceSignedData.parse(input, what: "unified receipt") }
            let current = Outcome { try ReferenceSignedData.current(input, what: "unified receipt") }
            #expect(reference == current, "input of \(input.count) bytes")
            if reference != current { break }
            checked += 1
        }
        #expect(checked > 20_000)
    }

    @Test("BER shapes: indefinite lengths, constructed OCTET STRINGs and deep nesting agree too")
    func berShapesAgree() throws {
        let payload: [UInt8] = Array("abc".utf8)
        let segmented = DER.tlv(ASN1Tag(.universal, 4, constructed: true), DER.octetString(payload) + DER.octetString(payload))
        let shapes: [[UInt8]] = [
            DER.sequence([DER.oid(.pkcs7SignedData), DER.explicit(0, DER.sequence([DER.integer(1), DER.set([]),
                DER.sequence([DER.oid(.pkcs7Data), DER.explicit(0, segmented)]), DER.set([])]))]),
            [0x30, 0x80] + DER.oid(.pkcs7SignedData) + [0xA0, 0x80, 0x30, 0x80] + DER.integer(1) + DER.set([])
                + [0x30, 0x80] + DER.oid(.pkcs7Data) + [0xA0, 0x80, 0x24, 0x80] + DER.octetString(payload) + [0, 0, 0, 0, 0, 0]
                + DER.set([]) + [0, 0, 0, 0, 0, 0],
            Array(repeating: [UInt8]([0x30, 0x80]), count: 60).flatMap { $0 } + Array(repeating: 0, count: 120),
            DER.sequence([DER.oid(OID("1.2.3") ?? .pkcs7Data)]),
        ]
        for shape in shapes {
            for input in Mutations.of(shape) + [shape] {
                let reference = Outcome { try ReferenceSignedData.parse(input, what: "PKCS#7") }
                #expect(reference == Outcome { try ReferenceSignedData.current(input, what: "PKCS#7") })
            }
        }
    }

    @Test("receipt attributes: the common shape reads what the full reader reads, or leaves it to it")
    func attributeShapesAgree() throws {
        let attributes: [[UInt8]] = [
            DER.sequence([DER.integer(2), DER.integer(1), DER.octetString(DER.utf8String("com.example.app"))]),
            DER.sequence([DER.integer(1704), DER.integer(-1), DER.octetString([])]),
            DER.sequence([DER.integer(17), DER.integer(1), DER.octetString(Array(repeating: 0x41, count: 300))]),
            DER.sequence([DER.integer(100_001), DER.integer(1), DER.octetString([1])]),
            DER.sequence([DER.integer(Int64.max), DER.integer(1), DER.octetString([1])]),
            DER.sequence([DER.integer(3), DER.integer(1), DER.octetString([1]), DER.integer(0)]),
        ]
        for attribute in attributes {
            for input in Mutations.of(attribute) + [attribute] {
                input.withUnsafeBufferPointer { bytes in
                    guard let tlv = try? TLVScanner.scan(bytes, at: 0, end: bytes.count, depth: 1, maxDepth: 48) else { return }
                    let full = Outcome { try ReceiptAttribute.readInFull(bytes, tlv, depth: 1, { "test" }).comparable }
                    if tlv.tag == .sequence, let fast = ReceiptAttribute.readCommonShape(bytes, tlv, depth: 1) {
                        #expect(full == .value(fast.comparable), "\(input)")
                    }
                    #expect(full == Outcome { try ReceiptAttribute.read(bytes, tlv, depth: 1, { "test" }).comparable })
                }
            }
        }
    }

    @Test("the TLV scanner's short path agrees with its full path")
    func scannerPathsAgree() throws {
        let real = try SampleFiles.der("unified-sandbox-sha256-g5.b64")
        for input in Mutations.of(Array(real.prefix(80))) {
            input.withUnsafeBufferPointer { bytes in
                for position in 0..<bytes.count {
                    for end in [bytes.count, max(0, bytes.count - 1), min(position + 2, bytes.count)] {
                        let short = Outcome { try TLVScanner.scan(bytes, at: position, end: end, depth: 3, maxDepth: 48).comparable }
                        let full = Outcome { try TLVScanner.scanInFull(bytes, at: position, end: end, depth: 3, maxDepth: 48).comparable }
                        #expect(short == full)
                    }
                }
            }
        }
    }
}

extension ReceiptAttribute {
    var comparable: [Int] { [type, version, valueRange.lowerBound, valueRange.upperBound, offset] }
}

extension TLV {
    var comparable: [Int] {
        [Int(tag.tagClass.rawValue), Int(tag.number), tag.isConstructed ? 1 : 0, headerStart, contentStart, contentEnd, end, isIndefinite ? 1 : 0]
    }
}
