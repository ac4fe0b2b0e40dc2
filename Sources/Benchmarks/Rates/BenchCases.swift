import Foundation
import ReceiptCore
import StoreSimulator

/// The benchmark cases: real Apple artefacts where they exist, the test CA's forgeries where a
/// shape is needed that no public artefact has (100 purchases).
enum BenchCases {
    /// The cases `only` selects (all when nil; the floors too when it names them), and the floors
    /// whether selected or not (the compared pairs need them).
    static func all(samples: String, only: String?) throws -> (selected: [Benchmark], floors: [Benchmark]) {
        func sample(_ name: String) throws -> [UInt8] {
            guard let data = FileManager.default.contents(atPath: samples + "/" + name) else {
                throw BenchmarkError(.usage, "\(samples)/\(name): sample missing (run from the repository root or pass --samples)")
            }
            return Array(data)
        }
        let apple = try TrustStore.apple()
        let verifier = ReceiptVerifier(trust: apple)
        let twoPurchases = try Base64.decode(String(decoding: try sample("unified-sandbox-sha256-g5.b64"), as: UTF8.self), "sample")
        let legacyText = String(decoding: try sample("legacy-ios6-sandbox.b64"), as: UTF8.self)
        let jwsText = String(decoding: try sample("real-transaction-sandbox.jws"), as: UTF8.self)
        let legacyPlist = try Base64.decode(legacyText, "legacy sample")

        var cases: [Benchmark] = [
            Benchmark(name: "decode unified 2-purchase") { _ = try AppReceipt(derEncoded: twoPurchases) },
            Benchmark(name: "decode+verify unified 2-purchase, warm chain cache") {
                try expectValid(verifier.verify(try AppReceipt(derEncoded: twoPurchases)))
            },
            Benchmark(name: "decode+verify unified 2-purchase, cold chain cache") {
                apple.clearChainCache()
                try expectValid(verifier.verify(try AppReceipt(derEncoded: twoPurchases)))
            },
            Benchmark(name: "decode legacy") { _ = try LegacyReceipt(plistBytes: legacyPlist) },
            Benchmark(name: "decode+verify legacy, warm chain cache") {
                try expectValid(try LegacyReceipt(plistBytes: legacyPlist).verify(trust: apple))
            },
            Benchmark(name: "decode JWS transaction") { _ = try SignedTransaction(compactJWS: jwsText) },
            Benchmark(name: "decode+verify JWS transaction, warm chain cache") {
                try expectValid(verifier.verify(.transaction(try SignedTransaction(compactJWS: jwsText))))
            },
            Benchmark(name: "decode+verify JWS transaction, cold chain cache") {
                apple.clearChainCache()
                try expectValid(verifier.verify(.transaction(try SignedTransaction(compactJWS: jwsText))))
            },
        ]
        cases += try forgedCases()
        let selected = cases.filter { only.map($0.name.contains) ?? true }
        let floorsWanted = only.map { "OpenSSL bare RSA-2048 verify ECDSA P-256, context prepared once".contains($0) } ?? true
        // The floors' keys are generated only when a floor row or a pair's case is to run.
        let pairWanted = selected.contains { bench in pairs.contains { $0.caseName == bench.name } }
        let (floors, prepared) = floorsWanted || pairWanted ? try floorCases() : ([], [])
        let wanted = (prepared + floors).filter { only.map($0.name.contains) ?? true }
        return (selected + (floorsWanted ? wanted : []), floors)
    }

    /// A 100-purchase receipt signed by the StoreSimulator's test CA (no public receipt has that shape).
    static func forgedCases() throws -> [Benchmark] {
        let authority = try TestCertificateAuthority.shared()
        let trust = authority.trustStore()
        let verifier = ReceiptVerifier(trust: trust)
        let start = RFC3339.parse("2024-01-01T00:00:00Z") ?? Date(timeIntervalSince1970: 1_704_067_200)
        let month: TimeInterval = 2_592_000
        var purchases: [ReceiptPurchase] = []
        for index in 0..<100 {
            let purchased: Date = start.addingTimeInterval(Double(index) * month)
            let transactionId = String(2_000_000_100_000 + index)
            let lineItem = Int64(2_000_000_050_000 + index)
            purchases.append(ReceiptPurchase(productId: "com.example.pro.monthly", transactionId: transactionId,
                                             originalTransactionId: "2000000100000", purchaseDate: purchased,
                                             expiresDate: purchased.addingTimeInterval(month),
                                             productTypeCode: 3, webOrderLineItemId: lineItem))
        }
        let receipt = try UnifiedReceiptBuilder(bundleId: "com.example.app", appVersion: "42",
                                                creationDate: start.addingTimeInterval(100 * month),
                                                purchases: purchases).build(signedBy: authority).der
        return [
            Benchmark(name: "decode unified 100-purchase") { _ = try AppReceipt(derEncoded: receipt) },
            Benchmark(name: "decode+verify unified 100-purchase, warm chain cache") {
                try expectValid(verifier.verify(try AppReceipt(derEncoded: receipt)))
            },
        ]
    }

    /// OpenSSL's bare verify through the same library: one EVP digest-verify of a 32-byte message
    /// (the floors); and the same with the key's digest-verify context set up once and copied for
    /// each verify, as the chain cache's leaf keys verify (`PreparedVerifier`), each compared
    /// with its floor: the part of a warm verify's lead on the floor that is that setup.
    static func floorCases() throws -> (floors: [Benchmark], prepared: [Benchmark]) {
        let message = [UInt8](repeating: 0x5A, count: 32)
        let rsa = try PrivateKey.generateRSA(bits: 2048)
        let rsaPublic = try rsa.publicKey()
        let rsaSignature = try rsa.sign(message, digest: .sha256)
        let ec = try PrivateKey.generateP256()
        let ecPublic = try ec.publicKey()
        let ecSignature = try ec.signES256(message)
        let (rsaPrepared, ecPrepared) = (PreparedVerifier(rsaPublic), PreparedVerifier(ecPublic))
        return ([
            Benchmark(name: "OpenSSL bare RSA-2048 verify") {
                guard rsaPublic.verify(signature: rsaSignature, message: message, digest: .sha256) else { throw BenchmarkError.notValid("RSA floor") }
            },
            Benchmark(name: "OpenSSL bare ECDSA P-256 verify") {
                guard ecPublic.verifyES256(rawSignature: ecSignature, message: message) else { throw BenchmarkError.notValid("P-256 floor") }
            },
        ], [
            Benchmark(name: "OpenSSL bare RSA-2048 verify, context prepared once") {
                guard rsaPrepared.verify(signature: rsaSignature, message: message, digest: .sha256) else { throw BenchmarkError.notValid("prepared RSA") }
            },
            Benchmark(name: "OpenSSL bare ECDSA P-256 verify, context prepared once") {
                guard ecPrepared.verifyES256(rawSignature: ecSignature, message: message) else { throw BenchmarkError.notValid("prepared P-256") }
            },
        ])
    }

    /// The compared pairs of issue 15: each measured interleaved with its floor (`InterleavedPair`).
    static let pairs = [
        RatePair(caseName: "decode+verify unified 2-purchase, warm chain cache", floorName: "OpenSSL bare RSA-2048 verify", aim: 0.85),
        RatePair(caseName: "decode+verify JWS transaction, warm chain cache", floorName: "OpenSSL bare ECDSA P-256 verify", aim: 0.85),
        RatePair(caseName: "OpenSSL bare RSA-2048 verify, context prepared once", floorName: "OpenSSL bare RSA-2048 verify", aim: nil),
        RatePair(caseName: "OpenSSL bare ECDSA P-256 verify, context prepared once", floorName: "OpenSSL bare ECDSA P-256 verify", aim: nil),
    ]

    /// The absolute aim of issue 2 as a line, when the decode rate was measured.
    static func decodeAim(_ results: [RateResult]) -> [String] {
        guard let decode = results.first(where: { $0.name == "decode unified 2-purchase" })?.opsPerSecond else { return [] }
        return [String(format: "decode unified 2-purchase: %.0f receipts/s (aim ≥ 250000) %@", decode, decode >= 250_000 ? "✓" : "✗")]
    }

    static func expectValid(_ verdict: Verdict) throws {
        guard verdict.status == .valid else { throw BenchmarkError.notValid(verdict.reason) }
    }
}
