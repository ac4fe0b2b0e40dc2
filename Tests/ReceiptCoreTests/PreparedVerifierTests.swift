import Foundation
import Testing
@testable import ReceiptCore

/// The prepared verify contexts a cached chain's leaf uses must accept and refuse exactly what
/// `PublicKey.verify` does, for every digest, again and again, and from several threads at once.
@Suite("Prepared verifier agrees with PublicKey.verify")
struct PreparedVerifierTests {
    @Test("RSA, SHA-1 and SHA-256: genuine, tampered, foreign and malformed signatures")
    func rsa() throws {
        let signer = try PrivateKey.generateRSA(bits: 2048)
        let other = try PrivateKey.generateRSA(bits: 2048)
        let key = try signer.publicKey()
        let prepared = PreparedVerifier(key)
        let message = Array("receipt content".utf8)
        for digest in [DigestAlgorithm.sha256, .sha1, .sha256] {
            let good = try signer.sign(message, digest: digest)
            let foreign = try other.sign(message, digest: digest)
            let otherDigest = try signer.sign(message, digest: digest == .sha1 ? .sha256 : .sha1)
            var flipped = good
            flipped[flipped.count / 2] ^= 0x01
            let cases: [([UInt8], [UInt8])] = [
                (good, message), (good, message + [0]), (foreign, message), (otherDigest, message),
                (flipped, message), (Array(good.dropLast()), message), ([], message), (good, []),
            ]
            for _ in 0..<2 {
                for (signature, text) in cases {
                    #expect(prepared.verify(signature: signature, message: text, digest: digest)
                            == key.verify(signature: signature, message: text, digest: digest))
                }
            }
            #expect(prepared.verify(signature: good, message: message, digest: digest))
            #expect(!prepared.verify(signature: flipped, message: message, digest: digest))
        }
    }

    @Test("ES256: genuine, tampered and malformed raw signatures")
    func es256() throws {
        let signer = try PrivateKey.generateP256()
        let key = try signer.publicKey()
        let prepared = PreparedVerifier(key)
        let message = Array("eyJhbGciOiJFUzI1NiJ9.eyJhIjoxfQ".utf8)
        let good = try signer.signES256(message)
        var flipped = good
        flipped[5] ^= 0x80
        let zeros = [UInt8](repeating: 0, count: 64)
        let cases: [([UInt8], [UInt8])] = [
            (good, message), (good, message.dropLast() + [0x41]), (flipped, message), (zeros, message),
            (Array(good.prefix(63)), message), (good + [0], message), ([], message),
        ]
        for _ in 0..<2 {
            for (signature, text) in cases {
                #expect(prepared.verifyES256(rawSignature: signature, message: text)
                        == key.verifyES256(rawSignature: signature, message: text))
            }
        }
        #expect(prepared.verifyES256(rawSignature: good, message: message))
        // The RSA path of an EC key is refused by both (OpenSSL will not verify PKCS#1 with it).
        #expect(prepared.verify(signature: good, message: message, digest: .sha1)
                == key.verify(signature: good, message: message, digest: .sha1))
    }

    @Test("A prefix hashed once: the same answer as the whole message, whatever is cached")
    func absorbedPrefix() throws {
        let signer = try PrivateKey.generateP256()
        let key = try signer.publicKey()
        let prepared = PreparedVerifier(key)
        // More headers than are kept (so older ones are dropped and made again), each long enough
        // to be absorbed, two of them differing in their last byte only, one too short to absorb.
        var headers = (0..<PreparedVerifier.absorbedCapacity + 2).map { index in
            Array("eyJ\(index)".utf8) + [UInt8](repeating: UInt8(ascii: "A") + UInt8(index), count: 1_000) + [UInt8(ascii: ".")]
        }
        headers.append(Array(headers[0].dropLast(2)) + [UInt8(ascii: "Z"), UInt8(ascii: ".")])
        headers.append(Array("eyJzaG9ydCI6MX0.".utf8))
        let payloads = [Array("eyJhIjoxfQ".utf8), Array("eyJhIjoyfQ".utf8), []]
        for round in 0..<3 {
            for header in headers {
                for payload in payloads {
                    let message = header + payload
                    let good = try signer.signES256(message)
                    var flipped = good
                    flipped[7] ^= 0x04
                    // Signed over the header alone, or over another header with this payload.
                    let other = try signer.signES256(headers[(headers.firstIndex(of: header)! + 1) % headers.count] + payload)
                    for signature in [good, flipped, other, Array(good.prefix(63))] {
                        let whole = key.verifyES256(rawSignature: signature, message: message)
                        #expect(prepared.verifyES256(rawSignature: signature, prefix: header[...], rest: payload[...]) == whole,
                                "round \(round), header of \(header.count) bytes, payload \(payload.count)")
                    }
                    #expect(prepared.verifyES256(rawSignature: good, prefix: header[...], rest: payload[...]))
                    // Cut elsewhere, the same bytes verify the same; a changed payload does not.
                    #expect(prepared.verifyES256(rawSignature: good, prefix: message.dropLast(3), rest: message.suffix(3)) || message.count - 3 < PreparedVerifier.minimumAbsorbedPrefix)
                    #expect(!prepared.verifyES256(rawSignature: good, prefix: header[...], rest: (payload + [0x41])[...]))
                }
            }
        }
    }

    @Test("A real JWS verifies through its absorbed header; a changed payload under it does not")
    func realJWSHeaderAbsorbed() throws {
        let jws = try CompactJWS(compact: try SampleFiles.text("real-transaction-sandbox.jws"))
        let leaf = try Certificate(der: try jws.certificate(at: 0)).publicKey()
        let prepared = PreparedVerifier(leaf)
        let parts = jws.signingInputParts
        #expect(Array(parts.header) + Array(parts.payload) == Array(jws.signingInput))
        #expect(parts.header.last == UInt8(ascii: "."))
        for _ in 0..<2 {
            #expect(prepared.verifyES256(rawSignature: jws.signature, prefix: parts.header, rest: parts.payload))
            var changed = Array(parts.payload)
            changed[changed.count / 2] ^= 0x01
            #expect(!prepared.verifyES256(rawSignature: jws.signature, prefix: parts.header, rest: changed[...]))
        }
    }

    @Test("Concurrent verifications each get their own context")
    func concurrent() async throws {
        let signer = try PrivateKey.generateP256()
        let prepared = PreparedVerifier(try signer.publicKey())
        let message = Array("concurrent".utf8)
        let good = try signer.signES256(message)
        var bad = good
        bad[0] ^= 1
        let tampered = bad
        let results = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<64 {
                group.addTask { prepared.verifyES256(rawSignature: index % 2 == 0 ? good : tampered, message: message) == (index % 2 == 0) }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0 })
    }
}
