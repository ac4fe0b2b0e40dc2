/// Finds the signer's certificate among a SignedData's certificates by issuer and serial number,
/// read with our own DER reader:
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
        return certificates.firstIndex { certificate in
            guard let (certIssuer, certSerial) = issuerAndSerial(certificate) else { return false }
            return certIssuer.elementsEqual(issuer) && certSerial.elementsEqual(serial)
        }
    }

    private static func issuerAndSerial(_ der: ArraySlice<UInt8>) -> (ArraySlice<UInt8>, ArraySlice<UInt8>)? {
        do {
            let certificate = try ASN1Reader.parseSingle(Array(der), "certificate")
            var outer = certificate.children()
            var tbs = try outer.read(.sequence, "tbsCertificate").children()
            _ = try tbs.readOptional(.context(0, constructed: true))
            let serial = try tbs.read(.integer, "serialNumber")
            _ = try tbs.read(.sequence, "signature")
            let issuer = try tbs.read(.sequence, "issuer")
            return (issuer.encoded, serial.content)
        } catch {
            return nil  // an unreadable certificate simply is not the signer's
        }
    }
}
