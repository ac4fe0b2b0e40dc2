import COpenSSL
import Foundation

extension Certificate {
    /// The first OCSP responder URL in the Authority Information Access extension
    /// (1.3.6.1.5.5.7.1.1, access method id-ad-ocsp), e.g. "http://ocsp.apple.com/ocsp03-wwdrg601"; nil when none.
    public var ocspResponderURL: String? {
        var buffer = [CChar](repeating: 0, count: 2048)
        let length = rd_x509_first_ocsp_url(x509, &buffer, buffer.count)
        guard length > 0 else { return nil }
        return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The serial number in lower-case hex.
    public var serialNumberHex: String {
        guard let serial = X509_get0_serialNumber(x509) else { return "?" }
        return OpenSSL.bytes(UnsafeMutablePointer(mutating: serial)).hexString
    }
}
