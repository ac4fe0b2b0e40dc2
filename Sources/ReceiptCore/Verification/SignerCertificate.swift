import Foundation

/// Finds the signer's certificate among a SignedData's certificates by issuer and serial number,
/// read in place with the TLV scanner:
///
///     Certificate ::= SEQUENCE { tbsCertificate TBSCertificate, … }
///     TBSCertificate ::= SEQUENCE { version [0] EXPLICIT INTEGER OPTIONAL, serialNumber INTEGER,
///                                   signature AlgorithmIdentifier, issuer Name, … }
enum SignerCertificate {
    static func index(of signer: SignerInfo, in certificates: [ArraySlice<UInt8>]) -> Int? {
        guard let issuer = signer.issuer, let serial = signer.serialNumber else {
            // Identified by subject key identifier: Apple never does this; take the first certificate.
            return certificates.isEmpty ? nil : 0
        }
        return issuer.withUnsafeBufferPointer { issuerBytes in
            serial.withUnsafeBufferPointer { serialBytes in
                certificates.firstIndex { certificate in
                    certificate.withUnsafeBufferPointer { matches($0, issuer: issuerBytes, serial: serialBytes) }
                }
            }
        }
    }

    private static func matches(_ der: UnsafeBufferPointer<UInt8>, issuer: UnsafeBufferPointer<UInt8>,
                                serial: UnsafeBufferPointer<UInt8>) -> Bool {
        do {
            let maxDepth = ASN1Limits.default.maxDepth
            let certificate = try TLVScanner.scan(der, at: 0, end: der.count, depth: 0, maxDepth: maxDepth)
            let tbs = try TLVScanner.scan(der, at: certificate.contentStart, end: certificate.contentEnd, depth: 1, maxDepth: maxDepth)
            var field = try TLVScanner.scan(der, at: tbs.contentStart, end: tbs.contentEnd, depth: 2, maxDepth: maxDepth)
            if field.tag == .context(0, constructed: true) {
                field = try TLVScanner.scan(der, at: field.end, end: tbs.contentEnd, depth: 2, maxDepth: maxDepth)
            }
            guard field.tag == .integer, same(der, field.contentStart..<field.contentEnd, serial) else { return false }
            let algorithm = try TLVScanner.scan(der, at: field.end, end: tbs.contentEnd, depth: 2, maxDepth: maxDepth)
            let name = try TLVScanner.scan(der, at: algorithm.end, end: tbs.contentEnd, depth: 2, maxDepth: maxDepth)
            return same(der, name.headerStart..<name.end, issuer)
        } catch {
            return false  // an unreadable certificate simply is not the signer's
        }
    }

    /// Whether `der[range]` holds exactly `expected` (one memcmp, not a generic element loop).
    private static func same(_ der: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ expected: UnsafeBufferPointer<UInt8>) -> Bool {
        guard range.count == expected.count else { return false }
        guard let base = der.baseAddress, let other = expected.baseAddress else { return range.isEmpty }
        return memcmp(base + range.lowerBound, other, range.count) == 0
    }
}
