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
